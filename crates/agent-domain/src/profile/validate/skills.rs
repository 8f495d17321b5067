//! `skills` rules: visibility names and read budgets.

use super::super::ProfileError;
use super::super::id::is_simple_name;
use super::super::schema::SkillsPolicy;

pub(super) fn check_skills(skills: &SkillsPolicy) -> Result<(), ProfileError> {
    if skills.visible.is_empty() {
        return Err(ProfileError::SkillVisibleEmpty);
    }
    let per_call = skills.max_read_chars_per_call;
    let per_run = skills.max_read_chars_per_run;
    if per_call == 0 || per_run == 0 || per_call > per_run {
        return Err(ProfileError::SkillBudgetInvalid { per_call, per_run });
    }
    for (field, names) in [
        ("skills.visible", &skills.visible),
        ("skills.deny", &skills.deny),
    ] {
        if let Some(bad) = names.iter().find(|n| *n != "*" && !is_simple_name(n)) {
            return Err(ProfileError::SkillNameInvalid {
                field: field.to_owned(),
                value: bad.clone(),
            });
        }
    }
    Ok(())
}

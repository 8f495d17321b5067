//! `dice.roll`: dice notation rolls through the [`Rng`](crate::ports::Rng) port. Reference:
//! `docs/tools.md`.

use serde_json::{Value, json};

use super::{Args, ToolContext, ToolFailure, ToolOutcome};

const MAX_COUNT: u64 = 100;
const MAX_SIDES: u64 = 1_000_000;
const MAX_MODIFIER: u64 = 1_000_000;

/// `count` dice with `sides` sides each, plus `modifier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dice {
    count: u32,
    sides: u32,
    modifier: i64,
}

/// Why a formula is not dice notation; every case is `dice.invalid_formula`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum FormulaError {
    #[error("formula must not contain spaces; write it like 3d6+4")]
    Spaces,
    #[error("formula must use dice notation such as d6, 1d20 or 3d6+4, or a plain number like 20")]
    NotDice,
    #[error("formula must contain only one d separator")]
    SeveralSeparators,
    #[error("the {part} `{text}` must be a whole number from 1 to {max} without leading zeros")]
    BadNumber {
        part: &'static str,
        text: String,
        max: u64,
    },
    #[error("the modifier `{0}` must be + or - followed by a whole number, as in 3d6+4 or 2d10-1")]
    BadModifier(String),
    #[error("the modifier must be between -{MAX_MODIFIER} and +{MAX_MODIFIER}")]
    ModifierTooLarge,
}

impl Dice {
    /// Parses `[count]d<sides>[(+|-)<modifier>]`, case-insensitively; a plain number `N`
    /// means `1dN`.
    fn parse(formula: &str) -> Result<Self, FormulaError> {
        if formula.chars().any(char::is_whitespace) {
            return Err(FormulaError::Spaces);
        }
        if !formula.is_empty() && formula.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(Self {
                count: 1,
                sides: number("number of sides", formula, MAX_SIDES)?,
                modifier: 0,
            });
        }
        let lower = formula.to_lowercase();
        let Some((count, rest)) = lower.split_once('d') else {
            return Err(FormulaError::NotDice);
        };
        if rest.contains('d') {
            return Err(FormulaError::SeveralSeparators);
        }
        let (sides, modifier) = match rest.find(['+', '-']) {
            Some(at) => rest.split_at(at),
            None => (rest, ""),
        };
        Ok(Self {
            count: if count.is_empty() {
                1
            } else {
                number("dice count", count, MAX_COUNT)?
            },
            sides: number("number of sides", sides, MAX_SIDES)?,
            modifier: parse_modifier(modifier)?,
        })
    }

    /// The formula as rolled: `<count>d<sides>`, then `+m` or `-m` unless the modifier is 0.
    fn normalised(&self) -> String {
        format!("{}d{}{}", self.count, self.sides, signed(self.modifier, ""))
    }

    fn min(&self) -> i64 {
        i64::from(self.count) + self.modifier
    }

    fn max(&self) -> i64 {
        i64::from(self.count) * i64::from(self.sides) + self.modifier
    }
}

/// A positive decimal number of at most `max`, without a sign or leading zeros.
fn number(part: &'static str, text: &str, max: u64) -> Result<u32, FormulaError> {
    let bad = || FormulaError::BadNumber {
        part,
        text: text.to_owned(),
        max,
    };
    if text.is_empty() || text.starts_with('0') || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    text.parse::<u64>()
        .ok()
        .filter(|n| *n <= max)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(bad)
}

/// `""` (no modifier), or `+` / `-` followed by decimal digits.
fn parse_modifier(text: &str) -> Result<i64, FormulaError> {
    if text.is_empty() {
        return Ok(0);
    }
    let bad = || FormulaError::BadModifier(text.to_owned());
    let (negative, digits) = match (text.strip_prefix('-'), text.strip_prefix('+')) {
        (Some(digits), _) => (true, digits),
        (None, Some(digits)) => (false, digits),
        (None, None) => return Err(bad()),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let size = digits
        .parse::<u64>()
        .ok()
        .filter(|n| *n <= MAX_MODIFIER)
        .and_then(|n| i64::try_from(n).ok())
        .ok_or(FormulaError::ModifierTooLarge)?;
    Ok(if negative { -size } else { size })
}

/// `+m` or `-m` (with `gap` around the sign), or nothing for 0.
fn signed(modifier: i64, gap: &str) -> String {
    match modifier {
        0 => String::new(),
        m if m > 0 => format!("{gap}+{gap}{m}"),
        m => format!("{gap}-{gap}{}", m.unsigned_abs()),
    }
}

pub(super) async fn roll(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let args = Args::parse(args, &["formula"])?;
    let dice = Dice::parse(&args.required_str("formula")?)
        .map_err(|e| ToolFailure::recoverable("dice.invalid_formula", e.to_string()))?;
    let rolls: Vec<u32> = (0..dice.count)
        .map(|_| ctx.ports.rng.roll(dice.sides))
        .collect();
    let total = rolls.iter().map(|r| i64::from(*r)).sum::<i64>() + dice.modifier;
    let formula = dice.normalised();
    let content = if dice.count == 1 && dice.modifier == 0 {
        format!("Rolled {formula}: {total}.")
    } else {
        let terms: Vec<String> = rolls.iter().map(u32::to_string).collect();
        format!(
            "Rolled {formula}: {}{} = {total}.",
            terms.join(" + "),
            signed(dice.modifier, " ")
        )
    };
    let structured = json!({
        "formula": formula,
        "rolls": rolls,
        "modifier": dice.modifier,
        "total": total,
        "min": dice.min(),
        "max": dice.max(),
    });
    Ok(ToolOutcome::read(content, structured, Vec::new()))
}

#[cfg(test)]
mod tests {
    use agent_domain::tool::BuiltinTool::DiceRoll;
    use serde_json::json;

    use super::*;
    use crate::tools::chat::test_support::Harness;

    fn dice(formula: &str) -> (u32, u32, i64) {
        let d = Dice::parse(formula).unwrap();
        (d.count, d.sides, d.modifier)
    }

    #[test]
    fn parses_the_documented_forms() {
        assert_eq!(dice("d6"), (1, 6, 0));
        assert_eq!(dice("1d20"), (1, 20, 0));
        assert_eq!(dice("3d6+4"), (3, 6, 4));
        assert_eq!(dice("2d10-1"), (2, 10, -1));
        assert_eq!(dice("20"), (1, 20, 0));
        assert_eq!(dice("D20"), (1, 20, 0));
        assert_eq!(dice("100d1000000+1000000"), (100, 1_000_000, 1_000_000));
        assert_eq!(dice("1d20-0"), (1, 20, 0));
    }

    #[test]
    fn normalises_the_formula() {
        for (raw, normal) in [
            ("D20", "1d20"),
            ("d6-2", "1d6-2"),
            ("1d20-0", "1d20"),
            ("20", "1d20"),
            ("3D6+04", "3d6+4"),
        ] {
            assert_eq!(Dice::parse(raw).unwrap().normalised(), normal, "{raw}");
        }
    }

    #[test]
    fn rejects_what_is_not_dice_notation() {
        let cases = [
            (
                "3d6 + 4",
                "formula must not contain spaces; write it like 3d6+4",
            ),
            (
                "roll",
                "formula must use dice notation such as d6, 1d20 or 3d6+4, or a plain number like 20",
            ),
            ("2d6d8", "formula must contain only one d separator"),
            (
                "0",
                "the number of sides `0` must be a whole number from 1 to 1000000 without leading zeros",
            ),
            (
                "0d6",
                "the dice count `0` must be a whole number from 1 to 100 without leading zeros",
            ),
            (
                "05d6",
                "the dice count `05` must be a whole number from 1 to 100 without leading zeros",
            ),
            (
                "101d6",
                "the dice count `101` must be a whole number from 1 to 100 without leading zeros",
            ),
            (
                "1d1000001",
                "the number of sides `1000001` must be a whole number from 1 to 1000000 without leading zeros",
            ),
            (
                "3d",
                "the number of sides `` must be a whole number from 1 to 1000000 without leading zeros",
            ),
            (
                "-1d6",
                "the dice count `-1` must be a whole number from 1 to 100 without leading zeros",
            ),
            (
                "1d6+",
                "the modifier `+` must be + or - followed by a whole number, as in 3d6+4 or 2d10-1",
            ),
            (
                "1d6+-2",
                "the modifier `+-2` must be + or - followed by a whole number, as in 3d6+4 or 2d10-1",
            ),
            (
                "1d6*2",
                "the number of sides `6*2` must be a whole number from 1 to 1000000 without leading zeros",
            ),
            (
                "1d6+1000001",
                "the modifier must be between -1000000 and +1000000",
            ),
            (
                "1d6-99999999999999999999",
                "the modifier must be between -1000000 and +1000000",
            ),
        ];
        for (raw, message) in cases {
            assert_eq!(Dice::parse(raw).unwrap_err().to_string(), message, "{raw}");
        }
    }

    #[tokio::test]
    async fn rolls_through_the_rng_port() {
        let mut h = Harness::new(vec![2, 5, 1]);
        let result = h.call(DiceRoll, json!({"formula": "3d6+4"})).await;
        assert!(!result.is_error);
        assert_eq!(result.content, "Rolled 3d6+4: 2 + 5 + 1 + 4 = 12.");
        assert_eq!(
            result.structured,
            json!({"formula": "3d6+4", "rolls": [2, 5, 1], "modifier": 4, "total": 12, "min": 7, "max": 22})
        );
        assert!(result.resource_refs.is_empty());

        let mut h = Harness::new(vec![17]);
        let result = h.call(DiceRoll, json!({"formula": " D20 "})).await;
        assert_eq!(result.content, "Rolled 1d20: 17.");
        assert_eq!(result.structured["min"], 1);
        assert_eq!(result.structured["max"], 20);

        let mut h = Harness::new(vec![3, 7]);
        let result = h.call(DiceRoll, json!({"formula": "2d10-1"})).await;
        assert_eq!(result.content, "Rolled 2d10-1: 3 + 7 - 1 = 9.");

        let mut h = Harness::new(vec![12]);
        let result = h.call(DiceRoll, json!({"formula": "d20+5"})).await;
        assert_eq!(result.content, "Rolled 1d20+5: 12 + 5 = 17.");
    }

    #[tokio::test]
    async fn bad_calls_are_recoverable() {
        let mut h = Harness::new(vec![1]);
        let (code, message) = h.error(DiceRoll, json!({"formula": "2d6d8"})).await;
        assert_eq!(code, "dice.invalid_formula");
        assert_eq!(message, "formula must contain only one d separator");
        let (code, _) = h.error(DiceRoll, json!({})).await;
        assert_eq!(code, "tool.invalid_arguments");
        let (code, message) = h
            .error(DiceRoll, json!({"formula": "d6", "times": 2}))
            .await;
        assert_eq!(code, "tool.invalid_arguments");
        assert!(message.contains("`times`"), "{message}");
    }
}

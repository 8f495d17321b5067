//! The world-info scan of an assembled prompt: which lorebooks apply to the chat,
//! SillyTavern's activation over the chat's messages, and what it leaves behind (entries for
//! the prompt, the timed effects to save with the chat). The rules are
//! `agent_domain::worldinfo`'s; this module loads their inputs. Guide: `docs/worldinfo.md`.

use std::sync::Arc;

use agent_domain::json::OrderedJson;
use agent_domain::run::GenerationType;
use agent_domain::sillytavern::{MacroNames, card_stem, expand_macros};
use agent_domain::worldinfo::{
    BookSelection, BookSources, Chance, CharacterContext, GenerationTrigger, GlobalScanData,
    ScanEngines, ScanInput, ScanMessage, WorldBook, WorldInfoActivation, WorldInfoSettings,
    activate, collect_entries, max_prompt_tokens, select_books, timed_state_for_chat,
};
use serde_json::{Value, json};

use super::PromptError;
use crate::ports::{ChatMessage, Clock, LoreEngines, Lorebooks, Rng, StoreError};
use crate::scene::ChatScene;

/// The world info of one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLore {
    /// The books scanned, in the order their entries were collected.
    pub books: Vec<String>,
    pub activation: WorldInfoActivation,
    /// When the scan ran (`timestampMs` of the captured activation).
    pub timestamp_ms: u64,
    pub trigger: GenerationTrigger,
    /// `chat_metadata.timedWorldInfo` to save with the run's first commit; `None` when it
    /// did not change (and always for a preview).
    pub timed_state: Option<OrderedJson>,
}

impl RunLore {
    /// The activation as `worldinfo.read_activated` reads it from a prompt snapshot.
    pub fn read_activated_json(&self) -> Value {
        self.activation
            .to_read_activated_json(self.timestamp_ms, self.trigger)
    }

    /// Why each entry fired or not, compactly, for the prompt snapshot and `prompt build`.
    pub fn explanation(&self) -> Value {
        let activated: Vec<Value> = self
            .activation
            .activated
            .iter()
            .map(|e| {
                json!({
                    "ref": entry_ref(&e.world, e.uid), "name": e.display_name,
                    "position": e.position.name(), "order": e.order, "pass": e.pass,
                    "cause": e.cause,
                })
            })
            .collect();
        let skipped: Vec<Value> = self
            .activation
            .skipped
            .iter()
            .map(|e| {
                json!({"ref": entry_ref(&e.world, e.uid), "name": e.display_name,
                       "pass": e.pass, "reason": e.reason})
            })
            .collect();
        json!({
            "books": self.books,
            "budget": self.activation.budget,
            "budgetOverflowed": self.activation.budget_overflowed,
            "passes": self.activation.passes,
            "activated": activated,
            "skipped": skipped,
        })
    }
}

/// The ref `worldinfo.read_activated` names an entry by.
fn entry_ref(world: &str, uid: i64) -> String {
    format!("worldinfo:{world}#{uid}")
}

/// What a scan reads besides the scene.
pub(super) struct LoreSources<'a> {
    pub lorebooks: &'a dyn Lorebooks,
    pub engines: Option<&'a Arc<dyn LoreEngines>>,
    pub rng: &'a dyn Rng,
    pub clock: &'a dyn Clock,
}

/// What a scan is for.
pub(super) struct LoreRequest<'a> {
    pub scene: &'a ChatScene,
    /// The generation type the host asked for (entries' `triggers` see a regenerate as one
    /// even when it became a normal reply).
    pub generation: GenerationType,
    /// The model the run calls, whose tokenizer counts the budget.
    pub model: Option<&'a str>,
    /// A preview: timed effects are neither read nor written.
    pub preview: bool,
}

/// The lorebooks of a scan and the settings it runs with.
pub(super) struct LoreBooks {
    settings: WorldInfoSettings,
    selection: BookSelection,
    books: Vec<WorldBook>,
}

/// Which books apply; `None` when none does (nothing to scan, no messages to read).
pub(super) async fn books(
    sources: &LoreSources<'_>,
    request: &LoreRequest<'_>,
) -> Result<Option<LoreBooks>, PromptError> {
    let scene = request.scene;
    let settings_value = scene.settings.clone().unwrap_or(Value::Null);
    let settings = WorldInfoSettings::from_settings_json(&settings_value);
    let available = sources.lorebooks.list().await.map_err(lore_error)?;
    let card = scene.character.as_ref();
    let stem = card.map(|c| card_stem(&c.avatar));
    let extra = stem.map_or(&[][..], |stem| settings.extra_books_for(stem));
    let chat_world = scene
        .chat_metadata
        .get("world_info")
        .and_then(Value::as_str);
    let selection = select_books(&BookSources {
        global_select: &settings.global_select,
        available: &available,
        character_world: card.and_then(|c| c.world.as_deref()),
        character_extra_books: extra,
        chat_world,
        persona_world: scene.user.lorebook.as_deref(),
    });
    if selection.names().is_empty() {
        return Ok(None);
    }
    let mut books = Vec::new();
    for name in selection.names() {
        if let Some(book) = sources.lorebooks.load(name).await.map_err(lore_error)? {
            books.push(WorldBook::parse(name, &book.text).map_err(PromptError::WorldInfo)?);
        }
    }
    Ok(Some(LoreBooks {
        settings,
        selection,
        books,
    }))
}

/// Runs the scan over `messages` (the prompt's chat, oldest first, hidden messages left out)
/// and the prompts registered for scanning (`injected`, macros not yet expanded).
pub(super) fn scan(
    sources: &LoreSources<'_>,
    request: &LoreRequest<'_>,
    lore: &LoreBooks,
    messages: &[ChatMessage],
    injected: Vec<String>,
) -> Result<RunLore, PromptError> {
    let settings = &lore.settings;
    let scene = request.scene;
    let Some(engines) = sources.engines else {
        return Err(PromptError::LoreEnginesMissing);
    };
    let tokens = engines
        .tokenizer(request.model)
        .map_err(PromptError::LoreEngine)?;
    let entries = collect_entries(&lore.selection, &lore.books, settings.character_strategy);
    let card = scene.character.as_ref();
    let settings_value = scene.settings.clone().unwrap_or(Value::Null);
    let trigger = GenerationTrigger::from_generation_type(request.generation.as_str());
    let names = scene.macro_names();
    let macros = |text: &str| expand_macros(text, &names);
    let input = ScanInput {
        messages: messages
            .iter()
            .map(|m| ScanMessage::new(m.name.clone(), m.text.clone()))
            .collect(),
        scan_data: GlobalScanData {
            persona_description: scene.user.description.clone(),
            character_description: card.map(|c| c.description.clone()).unwrap_or_default(),
            character_personality: card.map(|c| c.personality.clone()).unwrap_or_default(),
            character_depth_prompt: card
                .and_then(|c| c.depth_prompt.as_ref())
                .map(|d| d.prompt.clone())
                .unwrap_or_default(),
            scenario: card.map(|c| c.scenario.clone()).unwrap_or_default(),
            creator_notes: card
                .and_then(|c| c.creator_notes.clone())
                .unwrap_or_default(),
        },
        injections: injected.iter().map(|text| macros(text)).collect(),
        trigger,
        character: CharacterContext {
            avatar_stem: card.map(|c| card_stem(&c.avatar).to_owned()),
            tags: card.and_then(|c| tags_of(&settings_value, &c.avatar)),
        },
        max_prompt_tokens: max_prompt_tokens(&settings_value),
        timed_state: scene.chat_metadata.get("timedWorldInfo").cloned(),
        dry_run: request.preview,
        forced: Vec::new(),
    };
    let mut chance = RngChance(sources.rng);
    let mut engines = ScanEngines {
        regex: engines.regex(),
        tokens: tokens.as_ref(),
        chance: &mut chance,
        macros: &macros,
    };
    let activation = activate(&entries, settings, &input, &mut engines);
    let changed = match &input.timed_state {
        Some(before) => *before != activation.timed_state,
        None => has_records(&activation.timed_state),
    };
    let timed_state =
        (!request.preview && changed).then(|| timed_state_for_chat(&activation.timed_state));
    Ok(RunLore {
        books: lore.books.iter().map(|book| book.name.clone()).collect(),
        activation,
        timestamp_ms: sources.clock.now_millis(),
        trigger,
        timed_state,
    })
}

/// Whether a timed state holds any record (a chat without one gains none for nothing).
fn has_records(state: &Value) -> bool {
    state.as_object().is_some_and(|state| {
        state
            .values()
            .any(|records| records.as_object().is_none_or(|r| !r.is_empty()))
    })
}

/// `Math.random()` from the runtime's randomness.
struct RngChance<'a>(&'a dyn Rng);

impl Chance for RngChance<'_> {
    fn next_unit(&mut self) -> f64 {
        self.0.unit()
    }
}

/// The tag ids SillyTavern's `tag_map` files under a card's avatar; `None` when it has no
/// record for the card.
fn tags_of(settings: &Value, avatar: &str) -> Option<Vec<String>> {
    let tags = settings.get("tag_map")?.get(avatar)?.as_array()?;
    Some(
        tags.iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
    )
}

fn lore_error(error: StoreError) -> PromptError {
    PromptError::Lorebook(error)
}

/// Macro names for prompt text, with the outlets this scan filled.
pub(super) fn names_with_outlets(scene: &ChatScene, lore: Option<&RunLore>) -> MacroNames {
    let mut names = scene.macro_names();
    if let Some(lore) = lore {
        for outlet in &lore.activation.placement.outlets {
            if let Some(text) = lore.activation.placement.outlet(&outlet.name) {
                names.outlets.insert(outlet.name.clone(), text);
            }
        }
    }
    names
}

//! Ranking chat messages against a query: the pure core of `chat_search`, also benched on
//! its own.

use std::cmp::Ordering;

use agent_domain::text::TextMetrics;
use agent_domain::text::search::{Query, Scored, Scorer, chat_snippet};

use crate::ports::{ChatMessage, ChatRole};

/// Which messages a search considers (the index window is chosen by the caller).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChatSearchFilter {
    /// Only messages of this role.
    pub role: Option<ChatRole>,
}

/// One matching message.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatHit {
    pub index: usize,
    pub role: ChatRole,
    /// The share of the query found in the message, from 0 (exclusive) to 1.
    pub score: f64,
    /// The message around its first match ([`chat_snippet`]).
    pub snippet: String,
    /// Size of the whole message.
    pub metrics: TextMetrics,
}

/// The best `limit` messages of `messages` for `query`: highest score first, ties broken by
/// the higher (newer) index. Messages that do not match at all are left out. The tool pages
/// through a chat with [`HitRanker`]; this one-shot form is for tests and benches.
#[cfg(any(test, feature = "internals"))]
pub fn search_messages(
    messages: &[ChatMessage],
    query: &Query,
    filter: &ChatSearchFilter,
    limit: usize,
) -> Vec<ChatHit> {
    let mut ranker = HitRanker::new(query, *filter, limit);
    ranker.offer_all(messages);
    ranker.finish()
}

/// A message kept among the best so far. Its text is copied out of the page only if it is
/// still kept when the page is done, and its snippet made only if it is kept at the end.
struct Candidate {
    index: usize,
    role: ChatRole,
    score: f64,
    /// Where the message is in the page being offered; `None` once `text` holds its copy.
    in_page: Option<usize>,
    text: String,
}

/// Keeps the best hits while messages are offered page by page, in any order.
pub(super) struct HitRanker {
    scorer: Scorer,
    filter: ChatSearchFilter,
    limit: usize,
    best: Vec<Candidate>,
    matched: usize,
}

impl HitRanker {
    pub fn new(query: &Query, filter: ChatSearchFilter, limit: usize) -> Self {
        Self {
            scorer: Scorer::new(query.chat_tokens()),
            filter,
            limit,
            best: Vec::with_capacity(limit.saturating_add(1)),
            matched: 0,
        }
    }

    /// Offers one page of messages. They are scored in the order they lie in memory: a
    /// search is bound by reading every text once, and walking them backwards measured
    /// about twice as slow. A newer message displaces an older one of the same score, which
    /// costs little because a kept text is copied only when its page is done.
    pub fn offer_all(&mut self, messages: &[ChatMessage]) {
        for (at, message) in messages.iter().enumerate() {
            self.offer(at, message);
        }
        for kept in &mut self.best {
            if let Some(at) = kept.in_page.take() {
                kept.text.clone_from(&messages[at].text);
            }
        }
    }

    /// Scores the message at `at` of the page and keeps it when it ranks among the best so
    /// far.
    fn offer(&mut self, at: usize, message: &ChatMessage) {
        if self.filter.role.is_some_and(|role| role != message.role) {
            return;
        }
        let scored = self
            .scorer
            .score_where(&message.text, |best| self.could_keep(best, message.index));
        let score = match scored {
            Scored::Absent => return,
            Scored::Unwanted => {
                self.matched += 1;
                return;
            }
            Scored::Score(score) => score,
        };
        self.matched += 1;
        let place = self
            .best
            .partition_point(|kept| rank(kept.score, kept.index, score, message.index).is_lt());
        if place >= self.limit {
            return;
        }
        let candidate = Candidate {
            index: message.index,
            role: message.role,
            score,
            in_page: Some(at),
            text: String::new(),
        };
        self.best.insert(place, candidate);
        self.best.truncate(self.limit);
    }

    /// Whether a message at `index` scoring `score` would be kept: always while fewer than
    /// `limit` are, then only if it ranks before the worst kept hit.
    fn could_keep(&self, score: f64, index: usize) -> bool {
        match self.best.last() {
            Some(worst) if self.best.len() >= self.limit => {
                rank(score, index, worst.score, worst.index).is_lt()
            }
            _ => self.limit > 0,
        }
    }

    /// How many offered messages matched, kept or not.
    pub fn matched(&self) -> usize {
        self.matched
    }

    /// The best hits, best first.
    pub fn finish(self) -> Vec<ChatHit> {
        let tokens = self.scorer.tokens();
        self.best
            .into_iter()
            .map(|kept| ChatHit {
                index: kept.index,
                role: kept.role,
                score: kept.score,
                snippet: chat_snippet(&kept.text, tokens),
                metrics: TextMetrics::of(&kept.text),
            })
            .collect()
    }
}

/// Orders hits best first: higher score, then higher index.
fn rank(a_score: f64, a_index: usize, b_score: f64, b_index: usize) -> Ordering {
    b_score
        .total_cmp(&a_score)
        .then_with(|| b_index.cmp(&a_index))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(index: usize, role: ChatRole, text: &str) -> ChatMessage {
        ChatMessage::new(index, role, "", text)
    }

    fn ranked(
        messages: &[ChatMessage],
        query: &str,
        filter: ChatSearchFilter,
        limit: usize,
    ) -> Vec<(usize, f64)> {
        let query = Query::parse(query).unwrap();
        search_messages(messages, &query, &filter, limit)
            .into_iter()
            .map(|hit| (hit.index, hit.score))
            .collect()
    }

    #[test]
    fn best_first_ties_newest_first_and_limited() {
        let messages = [
            message(0, ChatRole::User, "blue moon"),
            message(1, ChatRole::Assistant, "blue sky"),
            message(2, ChatRole::User, "nothing here"),
            message(3, ChatRole::Assistant, "a blue bird"),
            message(4, ChatRole::User, "the moon is blue"),
        ];
        let all = ranked(&messages, "blue moon", ChatSearchFilter::default(), 10);
        assert_eq!(all, [(4, 1.0), (0, 1.0), (3, 0.5), (1, 0.5)]);
        let top = ranked(&messages, "blue moon", ChatSearchFilter::default(), 3);
        assert_eq!(top, [(4, 1.0), (0, 1.0), (3, 0.5)]);
        let users = ChatSearchFilter {
            role: Some(ChatRole::User),
        };
        assert_eq!(
            ranked(&messages, "blue moon", users, 10),
            [(4, 1.0), (0, 1.0)]
        );
    }

    #[test]
    fn offering_order_does_not_change_the_ranking() {
        let messages: Vec<ChatMessage> = (0..40)
            .map(|i| {
                message(
                    i,
                    ChatRole::User,
                    if i % 3 == 0 { "lantern" } else { "lamp" },
                )
            })
            .collect();
        let query = Query::parse("lantern lamp").unwrap();
        let mut backwards = HitRanker::new(&query, ChatSearchFilter::default(), 5);
        for page in messages.chunks(7).rev() {
            backwards.offer_all(page);
        }
        assert_eq!(backwards.matched(), 40);
        let forwards = search_messages(&messages, &query, &ChatSearchFilter::default(), 5);
        assert_eq!(backwards.finish(), forwards);
    }

    /// Giving up on messages that cannot enter the kept hits changes nothing: the hits and
    /// the match count equal those of scoring every message in full.
    #[test]
    fn early_give_ups_rank_as_scoring_everything() {
        let words = [
            "lantern", "blue", "moon", "Lanterns", "bridge", "北京", "river", "moo",
        ];
        let messages: Vec<ChatMessage> = (0..300)
            .map(|i: usize| {
                let text: Vec<&str> = (0..1 + i % 4)
                    .map(|k| words[(i * 7 + k * 3) % words.len()])
                    .collect();
                message(i, ChatRole::User, &text.join(" "))
            })
            .collect();
        for query in [
            "lantern",
            "blue moon",
            "lanterns river",
            "北京 moon",
            "bridge",
        ] {
            let parsed = Query::parse(query).unwrap();
            let scorer = Scorer::new(parsed.chat_tokens());
            let mut everything: Vec<(usize, f64)> = messages
                .iter()
                .map(|m| (m.index, scorer.score(&m.text)))
                .filter(|(_, score)| *score > 0.0)
                .collect();
            let matched = everything.len();
            everything.sort_by(|a, b| rank(a.1, a.0, b.1, b.0));
            for limit in [0, 1, 5, 20, 400] {
                let mut ranker = HitRanker::new(&parsed, ChatSearchFilter::default(), limit);
                for page in messages.chunks(64) {
                    ranker.offer_all(page);
                }
                assert_eq!(ranker.matched(), matched, "{query} / {limit}");
                let hits: Vec<(usize, f64)> = ranker
                    .finish()
                    .iter()
                    .map(|hit| (hit.index, hit.score))
                    .collect();
                assert_eq!(hits, everything[..limit.min(matched)], "{query} / {limit}");
            }
        }
    }

    #[test]
    fn hits_carry_snippet_and_size() {
        let text = format!("{} the blue lantern {}", "a".repeat(300), "b".repeat(300));
        let query = Query::parse("lantern").unwrap();
        let hits = search_messages(
            &[message(7, ChatRole::System, &text)],
            &query,
            &ChatSearchFilter::default(),
            1,
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].role, ChatRole::System);
        assert_eq!(hits[0].metrics.chars, 618);
        assert!(hits[0].snippet.starts_with("...") && hits[0].snippet.contains("lantern"));
        assert!(search_messages(&[], &query, &ChatSearchFilter::default(), 0).is_empty());
    }
}

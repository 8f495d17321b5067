use pretty_assertions::assert_eq;

use super::*;

fn chat(query: &str) -> Vec<Token> {
    Query::parse(query).unwrap().chat_tokens()
}

fn lines(query: &str) -> Vec<Token> {
    Query::parse(query).unwrap().line_tokens()
}

fn texts(tokens: &[Token]) -> Vec<&str> {
    tokens.iter().map(Token::as_str).collect()
}

fn weights(tokens: &[Token]) -> Vec<usize> {
    tokens.iter().map(Token::weight).collect()
}

fn assert_score(tokens: &[Token], haystack: &str, expected: f64) {
    let actual = Scorer::new(tokens.to_vec()).score(haystack);
    assert!(
        (actual - expected).abs() < 1e-12,
        "{:?} vs {haystack:?}: {actual} != {expected}",
        texts(tokens)
    );
}

// ---- parsing ----

#[test]
fn blank_queries_do_not_parse() {
    for raw in ["", "   ", "\n\t "] {
        assert_eq!(Query::parse(raw), None, "{raw:?}");
    }
}

#[test]
fn words_are_lowercased_and_split_on_punctuation() {
    let q = Query::parse("  Hello, World! snake_case a-b  ").unwrap();
    assert_eq!(q.text(), "Hello, World! snake_case a-b");
    assert_eq!(q.mode(), QueryMode::Tokens);
    assert_eq!(q.terms(), ["hello", "world", "snake_case", "a", "b"]);
}

#[test]
fn punctuation_only_queries_become_literal() {
    let cases: [(&str, &[&str]); 4] = [
        ("!!", &["!!"]),
        ("  -> ", &["->"]),
        ("…", &["…"]),
        ("-> =>", &["->", "=>"]),
    ];
    for (raw, pieces) in cases {
        let q = Query::parse(raw).unwrap();
        assert_eq!(q.mode(), QueryMode::Literal, "{raw:?}");
        assert_eq!(q.terms(), pieces, "{raw:?}");
        assert_eq!(texts(&q.chat_tokens()), pieces, "{raw:?}");
        assert_eq!(texts(&q.line_tokens()), pieces, "{raw:?}");
    }
    // One letter is enough to leave literal mode; the punctuation is then ignored.
    let mixed = Query::parse("!!a").unwrap();
    assert_eq!(mixed.mode(), QueryMode::Tokens);
    assert_eq!(mixed.terms(), ["a"]);
}

// ---- chat tokens: the documented worked examples ----

#[test]
fn cjk_word_expands_to_itself_and_bigrams() {
    let tokens = chat("北京烤鸭");
    assert_eq!(texts(&tokens), ["北京烤鸭", "北京", "京烤", "烤鸭"]);
    assert_eq!(weights(&tokens), [4, 2, 2, 2]);
    assert_score(&tokens, "我最喜欢北京烤鸭…", 1.0);
    assert_score(&tokens, "今天我们去北京吃烤鸭。", 0.4);
    assert_score(&tokens, "上海菜", 0.0);
}

#[test]
fn partial_english_word_scores_by_bigrams() {
    let tokens = chat("lanterns");
    assert_eq!(
        texts(&tokens),
        ["lanterns", "la", "an", "nt", "te", "er", "rn", "ns"]
    );
    assert_score(&tokens, "the blue lantern", 12.0 / 22.0);
    assert_score(&tokens, "The Blue LANTERNS", 1.0);
}

#[test]
fn several_words_are_kept_whole() {
    let tokens = chat("blue moon");
    assert_eq!(texts(&tokens), ["blue", "moon"]);
    assert_score(&tokens, "blue sky", 0.5);
    assert_score(&tokens, "Blue-Moon", 1.0);
}

#[test]
fn underscores_belong_to_words() {
    let tokens = chat("hello_world");
    assert_eq!(
        texts(&tokens),
        ["he", "el", "ll", "lo", "o_", "_w", "wo", "or", "rl", "ld"]
    );
    assert_score(&tokens, "hello world", 0.8);
    assert_score(&tokens, "HELLO_WORLD", 1.0);
}

#[test]
fn short_words_are_kept_as_is() {
    let tokens = chat("ok");
    assert_eq!(texts(&tokens), ["ok"]);
    assert_score(&tokens, "OK then", 1.0);
    assert_eq!(texts(&chat("犬")), ["犬"]);
}

#[test]
fn partial_words_match_inside_longer_words() {
    let tokens = chat("lant");
    assert_eq!(texts(&tokens), ["lant", "la", "an", "nt"]);
    assert_eq!(weights(&tokens), [4, 2, 2, 2]);
    assert_score(&tokens, "a plant", 1.0);
    assert_score(&tokens, "dry land", 0.4);
}

#[test]
fn japanese_kana_word_expands_to_bigrams() {
    let tokens = chat("ありがとう");
    assert_eq!(
        texts(&tokens),
        ["ありがとう", "あり", "りが", "がと", "とう"]
    );
    assert_eq!(weights(&tokens), [5, 2, 2, 2, 2]);
    assert_score(&tokens, "ありがと！", 6.0 / 13.0);
    assert_score(&tokens, "本当にありがとうございます", 1.0);
}

#[test]
fn cjk_words_in_a_multi_word_query() {
    let tokens = chat("東京 タワー");
    assert_eq!(texts(&tokens), ["東京", "タワー"]);
    assert_score(&tokens, "東京タワーに行く", 1.0);
    assert_score(&tokens, "東京駅", 0.4);
}

#[test]
fn long_cjk_words_in_a_multi_word_query_are_sampled() {
    // 10 characters: step ceil(9 / 8) = 2, so the bigrams at 0, 2, 4, 6, 8.
    let tokens = chat("我们今天晚上去看电影 OK");
    assert_eq!(
        texts(&tokens),
        ["我们", "今天", "晚上", "去看", "电影", "ok"]
    );
    assert_score(&tokens, "今天晚上OK吗", 6.0 / 12.0);
}

#[test]
fn mixed_script_and_digits() {
    let tokens = chat("Café 2024");
    assert_eq!(texts(&tokens), ["café", "2024"]);
    assert_score(&tokens, "CAFÉ opened in 2024", 1.0);
    assert_score(&tokens, "cafe 2024", 0.5);
}

#[test]
fn literal_queries_match_punctuation() {
    let bang = chat("!!");
    assert_score(&bang, "Wait!! What?", 1.0);
    assert_score(&bang, "Wait! What?", 0.0);
    let arrow = chat("->");
    assert_score(&arrow, "a -> b", 1.0);
    let two = chat("-> =>");
    assert_eq!(weights(&two), [2, 2]);
    assert_score(&two, "a -> b", 0.5);
}

#[test]
fn blank_haystacks_and_empty_tokens_score_zero() {
    assert_score(&chat("blue"), "", 0.0);
    assert_score(&chat("blue"), "  \n ", 0.0);
    assert_score(&[], "blue", 0.0);
}

#[test]
fn long_single_words_sample_about_32_bigrams() {
    // 40 characters: step ceil(39 / 32) = 2, bigrams at 0, 2, …, 38; the word itself is
    // longer than 8 and is not kept.
    let word = "abcdefghijklmnopqrstuvwxyz0123456789αβγδ";
    let tokens = chat(word);
    assert_eq!(tokens.len(), 20);
    assert_eq!(texts(&tokens)[..3], ["ab", "cd", "ef"]);
    assert_eq!(texts(&tokens)[19], "γδ");
}

#[test]
fn repeats_are_dropped() {
    assert_eq!(texts(&chat("blue Blue moon")), ["blue", "moon"]);
    // Repeated bigrams of one word collapse too.
    assert_eq!(texts(&chat("aaaa")), ["aaaa", "aa"]);
}

#[test]
fn long_queries_are_thinned_to_64_tokens() {
    let words: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
    let query = Query::parse(&words.join(" ")).unwrap();
    let chat_tokens = query.chat_tokens();
    // 100 tokens: keep every ceil(100 / 64) = 2nd.
    assert_eq!(chat_tokens.len(), 50);
    assert_eq!(chat_tokens[0].as_str(), "w0");
    assert_eq!(chat_tokens[1].as_str(), "w2");
    assert_eq!(chat_tokens[49].as_str(), "w98");
    // Line tokens keep the first 64.
    let line_tokens = query.line_tokens();
    assert_eq!(line_tokens.len(), MAX_TOKENS);
    assert_eq!(line_tokens[63].as_str(), "w63");
}

#[test]
fn line_tokens_never_expand() {
    assert_eq!(texts(&lines("北京烤鸭")), ["北京烤鸭"]);
    assert_eq!(texts(&lines("hello_world Hello_World")), ["hello_world"]);
    assert_score(&lines("lanterns"), "the blue lantern", 0.0);
}

// ---- snippets ----

#[test]
fn short_texts_are_their_own_snippet() {
    let text = "x".repeat(SNIPPET_CHARS);
    assert_eq!(chat_snippet(&text, &chat("y")), text);
}

#[test]
fn long_texts_are_cut_around_the_first_match() {
    let text = format!("{}needle{}", "a".repeat(300), "b".repeat(300));
    let snippet = chat_snippet(&text, &chat("needle"));
    let expected = format!("...{}needle{}...", "a".repeat(40), "b".repeat(154));
    assert_eq!(snippet, expected);

    // A match near the start keeps the beginning, without a leading marker.
    let early = format!("ab needle {}", "c".repeat(300));
    let snippet = chat_snippet(&early, &chat("needle"));
    assert!(snippet.starts_with("ab needle"));
    assert!(snippet.ends_with("..."));
    assert_eq!(snippet.chars().count(), SNIPPET_CHARS + 3);

    // A match near the end gives a shorter snippet without a trailing marker.
    let late = format!("{}needle", "d".repeat(300));
    let snippet = chat_snippet(&late, &chat("needle"));
    assert_eq!(snippet, format!("...{}needle", "d".repeat(40)));

    // No match: the first 200 characters.
    let none = chat_snippet(&late, &chat("zzz"));
    assert_eq!(none, format!("{}...", "d".repeat(200)));
}

#[test]
fn snippets_count_characters_not_bytes() {
    let text = format!("{}北京烤鸭{}", "字".repeat(100), "尾".repeat(200));
    let snippet = chat_snippet(&text, &chat("北京烤鸭"));
    let expected = format!("...{}北京烤鸭{}...", "字".repeat(40), "尾".repeat(156));
    assert_eq!(snippet, expected);
}

#[test]
fn snippet_starts_at_the_earliest_of_all_tokens() {
    let text = format!(
        "{}moon{}blue{}",
        "a".repeat(100),
        "b".repeat(100),
        "c".repeat(100)
    );
    let snippet = chat_snippet(&text, &chat("blue moon"));
    assert!(snippet.starts_with(&format!("...{}moon", "a".repeat(40))));
}

// ---- line search ----

const POEM: &str = "\
the blue moon
a quiet night
blue sky above
nothing here
more nothing
even more
the moon again
blue moon rising";

#[test]
fn hits_rank_by_score_then_line() {
    let hits = search_lines(POEM, &lines("blue moon"), 0, 10);
    let found: Vec<(u64, f64)> = hits.iter().map(|h| (h.line, h.score)).collect();
    assert_eq!(found, [(1, 1.0), (8, 1.0), (3, 0.5), (7, 0.5)]);
    assert!(
        hits.iter()
            .all(|h| h.start_line == h.line && h.end_line == h.line)
    );
}

#[test]
fn context_is_clamped_to_the_text() {
    let hits = search_lines(POEM, &lines("blue moon"), 2, 1);
    assert_eq!(
        (hits[0].start_line, hits[0].end_line, hits[0].line),
        (1, 3, 1)
    );
    let last = search_lines(POEM, &lines("rising"), 2, 10);
    assert_eq!((last[0].start_line, last[0].end_line), (6, 8));
}

#[test]
fn overlapping_windows_are_dropped_greedily() {
    // Line 1 (score 1) takes 1-2; line 3 (0.5) would take 2-4 and overlaps, so it is
    // dropped; line 8 takes 7-8; line 7 overlaps line 8's window.
    let hits = search_lines(POEM, &lines("blue moon"), 1, 10);
    let windows: Vec<(u64, u64, u64)> = hits
        .iter()
        .map(|h| (h.start_line, h.end_line, h.line))
        .collect();
    assert_eq!(windows, [(1, 2, 1), (7, 8, 8)]);
}

#[test]
fn touching_windows_are_both_kept() {
    let text = "x\ny\nx\ny";
    let hits = search_lines(text, &lines("x"), 0, 10);
    assert_eq!(hits.len(), 2);
    let text = "x\n-\n-\nx";
    let hits = search_lines(text, &lines("x"), 1, 10);
    let windows: Vec<(u64, u64)> = hits.iter().map(|h| (h.start_line, h.end_line)).collect();
    assert_eq!(windows, [(1, 2), (3, 4)]);
}

#[test]
fn max_hits_limits_and_zero_returns_nothing() {
    assert_eq!(search_lines(POEM, &lines("blue moon"), 0, 2).len(), 2);
    assert!(search_lines(POEM, &lines("blue moon"), 0, 0).is_empty());
    assert!(search_lines(POEM, &lines("absent"), 2, 10).is_empty());
    assert!(search_lines("", &lines("blue"), 2, 10).is_empty());
}

#[test]
fn line_search_uses_reading_line_numbers() {
    let text = "one\r\ntwo -> three\r\n";
    let hits = search_lines(text, &lines("->"), 5, 10);
    assert_eq!(
        (hits[0].start_line, hits[0].end_line, hits[0].line),
        (1, 2, 2)
    );
}

#[test]
fn latin_queries_fold_case_in_mixed_script_text() {
    assert_score(&chat("lantern"), "北京的 LANTERN 在河边。", 1.0);
    assert_score(&chat("Lantern"), "ランタン Lanterns glow", 1.0);
    // The two non-ASCII characters whose lowercase is ASCII still match.
    assert_score(&chat("kelvin"), "北京 \u{212A}ELVIN", 1.0);
    assert_score(&chat("i"), "北京 \u{130}", 1.0);
    // Non-ASCII letters in the query fold with full Unicode rules.
    assert_score(&chat("café"), "北京 CAFÉ", 1.0);
    assert_score(&chat("ПРИВЕТ"), "北京 привет", 1.0);
}

#[test]
fn folding_finds_capitals_only_where_they_are() {
    // Found as written for one token, only after folding for the other.
    assert_score(&lines("moon BLUE"), "the moon is BLUE", 1.0);
    assert_score(&lines("moon blue"), "the moon is BLUE", 1.0);
    // Capitals of letters no token has leave the text as it is; the score is the same.
    assert_score(&lines("moon blue"), "THE MOON IS RED", 0.5);
    assert_score(&chat("zeppelin"), "XYZ QRS", 0.0);
}

#[test]
fn score_where_gives_up_once_the_wanted_score_is_out_of_reach() {
    let scorer = Scorer::new(lines("blue moon"));
    assert_eq!(
        scorer.score_where("blue moon", |_| true),
        Scored::Score(1.0)
    );
    assert_eq!(scorer.score_where("red sun", |_| false), Scored::Absent);
    // "blue" is found, "moon" is not: 0.5 at best, and only a full score is wanted.
    assert_eq!(
        scorer.score_where("blue sky", |best| best >= 1.0),
        Scored::Unwanted
    );
    assert_eq!(
        scorer.score_where("blue sky", |best| best >= 0.5),
        Scored::Score(0.5)
    );
}

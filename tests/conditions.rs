//! Approval conditions (`ConditionalRule`): each kind of condition, the issue's two examples
//! through a coordinator, precedence against the other layers and modes, loading from
//! settings.json with its errors, and `explain`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tool_core::{
    BoxFuture, Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace, WorkspacePath,
    approval::{ApprovalRequest, ApprovalResponse, Approver},
    coordinator::CoordinatorBuilder,
    policy::{
        ClassifiedCall, Condition, ConditionalRule, EffectFilter, Mode, Policy, PolicyBuilder,
        PolicyContext, PolicyLayer, Rule, RulePattern, Verdict, priority,
    },
    settings::{Settings, SettingsError},
    spec::{Effect, ToolSpec},
    tool,
    workspace::ResolvedPath,
};

const MB: usize = 1_000_000;

// ---------------------------------------------------------------------------------------------
// The conditions, one by one, on calls made by hand.

/// A call of `spec` with these arguments and, for the argument `path`, resolved paths of these
/// sizes.
struct Call {
    spec: ToolSpec,
    arguments: String,
    paths: Vec<ResolvedPath>,
}

impl Call {
    fn new(spec: ToolSpec, arguments: &str) -> Self {
        Call {
            spec,
            arguments: arguments.to_owned(),
            paths: Vec::new(),
        }
    }

    fn sized(mut self, arg: &'static str, sizes: &[Option<u64>]) -> Self {
        for (index, size) in sizes.iter().enumerate() {
            let sent = format!("file{index}.txt");
            self.paths.push(ResolvedPath {
                arg: arg.into(),
                absolute: PathBuf::from("/ws").join(&sent),
                relative: Some(PathBuf::from(&sent)),
                sent,
                problem: None,
                size: *size,
            });
        }
        self
    }

    fn classified(&self) -> ClassifiedCall<'_> {
        ClassifiedCall::new(&self.spec)
            .with_arguments(&self.arguments)
            .with_paths(&self.paths)
    }
}

fn write_spec() -> ToolSpec {
    ToolSpec::new("write_file", "Write a file.").aliases(["Write"])
}

fn fetch_spec() -> ToolSpec {
    ToolSpec::new("fetch_url", "Fetch a page.").read_only()
}

/// Whether a deny rule with this one condition decides about a `write_file` call with these
/// arguments and, for its argument `path`, files of these sizes; and that its reason names it.
fn holds(condition: Condition, arguments: &str, sizes: &[Option<u64>]) -> bool {
    let rule = ConditionalRule::deny("the rule").when(condition);
    let call = Call::new(write_spec(), arguments).sized("path", sizes);
    let decision = rule.evaluate(&call.classified(), &PolicyContext::default());
    if let Some(decision) = &decision {
        assert_eq!(decision.verdict, Verdict::Deny);
        assert!(
            decision.reason.contains("(rule `the rule`)"),
            "{}",
            decision.reason
        );
    }
    decision.is_some()
}

#[test]
fn each_text_condition_holds_or_not() {
    let arg = || Condition::arg("a");
    let regex = |pattern: &str| arg().matches(pattern).unwrap();
    let cases = [
        // contains: case-sensitive, anywhere in the text.
        (
            arg().contains("token="),
            json!("https://x.dev/?b=1&token=s"),
            true,
        ),
        (arg().contains("token="), json!("https://x.dev/?b=1"), false),
        (
            arg().contains("token="),
            json!("https://x.dev/?TOKEN=s"),
            false,
        ),
        // equals: the whole text; other JSON values by their compact JSON text.
        (arg().equals("DELETE"), json!("DELETE"), true),
        (arg().equals("DELETE"), json!("DELETE /x"), false),
        (arg().equals("42"), json!(42), true),
        (arg().equals(r#"["a","b"]"#), json!(["a", "b"]), true),
        // matches: a regular expression found anywhere, unless anchored.
        (regex(r"[?&]token="), json!("https://x.dev/?token=s"), true),
        (regex(r"[?&]token="), json!("https://x.dev/token=s"), false),
        (
            regex(r"(?i)[?&]token="),
            json!("https://x.dev/?Token=s"),
            true,
        ),
        (regex(r"^https://"), json!("see https://x.dev"), false),
        // longer_than, shorter_than: characters, not bytes.
        (arg().longer_than(5), json!("abcdef"), true),
        (arg().longer_than(6), json!("abcdef"), false),
        (arg().longer_than(6), json!("éééééé"), false),
        (arg().shorter_than(3), json!("ab"), true),
        (arg().shorter_than(3), json!("abc"), false),
        (arg().shorter_than(1), json!(""), true),
        // An argument sent as null has no text: no condition on it holds.
        (arg().shorter_than(10), json!(null), false),
    ];
    for (condition, value, expected) in cases {
        let shown = format!("{condition}, for {value}");
        let arguments = json!({ "a": value }).to_string();
        assert_eq!(holds(condition, &arguments, &[]), expected, "{shown}");
    }
    // An argument the call does not have, or arguments that are no JSON object.
    for arguments in [r#"{"b": "x"}"#, "", "[1]", "not json"] {
        assert!(
            !holds(arg().shorter_than(10), arguments, &[]),
            "{arguments}"
        );
    }
}

#[test]
fn each_file_size_condition_holds_or_not() {
    let size = || Condition::file_size("path");
    let cases = [
        (size().greater_than(10), vec![Some(11)], true),
        (size().greater_than(10), vec![Some(10)], false),
        (size().less_than(10), vec![Some(9)], true),
        (size().less_than(10), vec![Some(10)], false),
        // A path naming no regular file (not created yet, a directory) has no size.
        (size().greater_than(10), vec![None], false),
        (size().less_than(10), vec![None], false),
        // Without a workspace there are no resolved paths, so no sizes.
        (size().less_than(10), vec![], false),
        // Only the paths of the argument named count.
        (
            Condition::file_size("target").greater_than(0),
            vec![Some(5)],
            false,
        ),
    ];
    for (condition, sizes, expected) in cases {
        let shown = format!("{condition}, for {sizes:?}");
        assert_eq!(holds(condition, "{}", &sizes), expected, "{shown}");
    }
}

#[test]
fn every_condition_of_a_rule_must_hold() {
    let rule = ConditionalRule::ask("both")
        .when(Condition::arg("content").longer_than(3))
        .when(Condition::arg("path").contains("logs/"));
    let session = PolicyContext::default();
    let cases = [
        (r#"{"path": "logs/a", "content": "abcdef"}"#, true),
        (r#"{"path": "src/a", "content": "abcdef"}"#, false),
        (r#"{"path": "logs/a", "content": "ab"}"#, false),
    ];
    for (arguments, holds) in cases {
        let call = Call::new(write_spec(), arguments);
        let decision = rule.evaluate(&call.classified(), &session);
        assert_eq!(decision.is_some(), holds, "{arguments}");
    }
    let call = Call::new(write_spec(), cases[0].0);
    let reason = rule.evaluate(&call.classified(), &session).unwrap().reason;
    assert_eq!(
        reason,
        "the argument `content` is longer than 3 characters (6) and the argument `path` contains `logs/` (rule `both`), so the user is asked before `write_file` runs"
    );
}

#[test]
fn a_rule_selects_calls_by_tool_and_effect() {
    let spec = |name: &str, effect: Effect| {
        let spec = ToolSpec::new(name.to_owned(), "A tool.").aliases(["Write"]);
        match effect {
            Effect::ReadOnly => spec.read_only(),
            Effect::Mutating => spec,
            Effect::Destructive => spec.destructive(),
        }
    };
    let tools = [
        (Some("write_file"), "write_file", true),
        (Some("Write"), "write_file", true), // an alias
        (Some("write_*"), "write_file", true),
        (Some("write_*"), "read_file", false),
        (Some("mcp__github"), "mcp__github__create_issue", true),
        (Some("mcp__github__*"), "mcp__github__create_issue", true),
        (Some("mcp__github"), "mcp__gitlab__create_issue", false),
        (None, "anything", true),
    ];
    let session = PolicyContext::default();
    for (tool, name, selected) in tools {
        let mut rule = ConditionalRule::deny("t");
        if let Some(tool) = tool {
            rule = rule.tool(tool).unwrap();
        }
        let call = Call::new(spec(name, Effect::Mutating), "{}");
        assert_eq!(
            rule.evaluate(&call.classified(), &session).is_some(),
            selected,
            "{tool:?} on {name}"
        );
    }
    let effects = [
        (EffectFilter::ReadOnly, [true, false, false]),
        (EffectFilter::Mutating, [false, true, false]),
        (EffectFilter::Destructive, [false, false, true]),
        (EffectFilter::NotReadOnly, [false, true, true]),
    ];
    for (filter, expected) in effects {
        let rule = ConditionalRule::deny("e").effect(filter);
        for (effect, selected) in [Effect::ReadOnly, Effect::Mutating, Effect::Destructive]
            .into_iter()
            .zip(expected)
        {
            let call = Call::new(spec("t", Effect::Mutating), "{}");
            // The call's own effect (as `read_only_if` gives it), not the spec's.
            let classified = call.classified().with_effect(effect);
            assert_eq!(
                rule.evaluate(&classified, &session).is_some(),
                selected,
                "{filter} on {effect}"
            );
        }
    }
    let error = ConditionalRule::deny("t")
        .tool("run_shell(git push:*)")
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`run_shell(git push:*)` is not a tool name"),
        "{error}"
    );
}

#[test]
fn file_sizes_of_several_paths_are_judged_cautiously() {
    // One argument, two paths (as sent and as repaired): a deny or ask rule holds when any
    // path's file is over the limit; an allow rule only when every path's file is under it.
    let session = PolicyContext::default();
    let deny = ConditionalRule::deny("big").when(Condition::file_size("path").greater_than(100));
    let allow = ConditionalRule::allow("small").when(Condition::file_size("path").less_than(100));
    let cases = [
        (vec![Some(50), Some(500)], true, false),
        (vec![Some(500), Some(50)], true, false),
        (vec![Some(50), Some(60)], false, true),
        (vec![Some(50), None], false, false),
        (vec![Some(500), Some(600)], true, false),
    ];
    for (sizes, denied, allowed) in cases {
        let call = Call::new(write_spec(), "{}").sized("path", &sizes);
        let classified = call.classified();
        assert_eq!(
            deny.evaluate(&classified, &session).is_some(),
            denied,
            "{sizes:?}"
        );
        assert_eq!(
            allow.evaluate(&classified, &session).is_some(),
            allowed,
            "{sizes:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Precedence against the other layers and the modes.

#[test]
fn precedence_against_rules_and_modes() {
    use PolicyLayer as L;
    use Verdict::{Allow, Ask, Deny};
    let no_tokens = || {
        ConditionalRule::deny("no tokens in URLs")
            .tool("fetch_url")
            .unwrap()
            .when(Condition::arg("url").contains("token="))
    };
    let large_writes = || {
        ConditionalRule::ask("large writes")
            .effect(EffectFilter::NotReadOnly)
            .when(Condition::arg("content").longer_than(10))
    };
    let small_writes = || {
        ConditionalRule::allow("small writes")
            .tool("write_file")
            .unwrap()
            .when(Condition::arg("content").shorter_than(10))
    };
    let build = |builder: PolicyBuilder| builder.build().unwrap();
    let allowed_fetch = build(Policy::builder().allow("fetch_url").rule(no_tokens()));
    let denied_fetch = build(Policy::builder().deny("fetch_url").rule(no_tokens()));
    let allowed_write = build(Policy::builder().allow("write_file").rule(large_writes()));
    let ask_and_allow = build(Policy::builder().rule(small_writes()).rule(large_writes()));
    let small_allowed = build(Policy::builder().rule(small_writes()));
    let asked_write = build(Policy::builder().ask("write_file").rule(small_writes()));
    let denied_write = build(Policy::builder().deny("Write").rule(small_writes()));
    // A priority moves a rule: here an allow condition before the deny rules.
    let moved = small_writes().with_priority(priority::DENY_RULES - 10);
    let moved_allow = build(Policy::builder().deny("write_file").rule(moved));

    let token = Call::new(fetch_spec(), r#"{"url": "https://x.dev/?token=s"}"#);
    let clean = Call::new(fetch_spec(), r#"{"url": "https://x.dev/"}"#);
    let large = Call::new(
        write_spec(),
        r#"{"path": "a.txt", "content": "0123456789abc"}"#,
    );
    let small = Call::new(write_spec(), r#"{"path": "a.txt", "content": "hi"}"#);

    let cases = [
        // A deny condition: no allow rule or mode overrides it; a user's deny rule is first.
        (&allowed_fetch, Mode::Default, &token, Deny, L::Condition),
        (&allowed_fetch, Mode::Bypass, &token, Deny, L::Condition),
        (
            &allowed_fetch,
            Mode::AcceptEdits,
            &token,
            Deny,
            L::Condition,
        ),
        (&denied_fetch, Mode::Default, &token, Deny, L::DenyRule),
        (&allowed_fetch, Mode::Default, &clean, Allow, L::AllowRule),
        // An ask condition is an ask rule: over allow rules and allow conditions, after the
        // modes; in dontAsk mode, a deny.
        (&allowed_write, Mode::Default, &large, Ask, L::Condition),
        (&ask_and_allow, Mode::Default, &large, Ask, L::Condition),
        (&allowed_write, Mode::Plan, &large, Deny, L::Mode),
        (&allowed_write, Mode::Bypass, &large, Allow, L::Mode),
        (&allowed_write, Mode::DontAsk, &large, Deny, L::Mode),
        (&allowed_write, Mode::Default, &small, Allow, L::AllowRule),
        // An allow condition is an allow rule: over the default, under plan mode, ask and
        // deny rules.
        (&small_allowed, Mode::Default, &small, Allow, L::Condition),
        (&small_allowed, Mode::Default, &large, Ask, L::Default),
        (&small_allowed, Mode::Plan, &small, Deny, L::Mode),
        (&asked_write, Mode::Default, &small, Ask, L::AskRule),
        (&denied_write, Mode::Default, &small, Deny, L::DenyRule),
        (&moved_allow, Mode::Default, &small, Allow, L::Condition),
    ];
    for (index, (policy, mode, call, verdict, layer)) in cases.into_iter().enumerate() {
        let decision = policy.decide(&call.classified(), &PolicyContext::new(mode));
        assert_eq!(
            (decision.verdict, decision.source.layer),
            (verdict, layer),
            "case {index}: {policy:?} in {mode} mode: {}",
            decision.reason
        );
    }
    // A session grant does not silence an ask condition (grants come after it).
    let grants = PolicyContext::default().grant(RulePattern::parse("write_file").unwrap());
    let policy = build(Policy::builder().rule(large_writes()));
    assert_eq!(policy.decide(&large.classified(), &grants).verdict, Ask);
    assert_eq!(policy.decide(&small.classified(), &grants).verdict, Allow);
}

#[test]
fn safety_comes_before_an_allow_condition() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let workspace = Workspace::new(dir.path()).unwrap();
    let policy = Policy::builder()
        .rule(ConditionalRule::allow("everything").with_priority(priority::SAFETY + 1))
        .build()
        .unwrap();
    let spec = write_spec();
    for sent in ["../elsewhere.txt", ".git/config"] {
        let paths = [workspace.confine("path", sent)];
        let call = ClassifiedCall::new(&spec).with_paths(&paths);
        let decision = policy.decide(&call, &PolicyContext::default());
        assert_eq!(
            (decision.verdict, decision.source.layer),
            (Verdict::Deny, PolicyLayer::Safety),
            "{sent}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The issue's two examples through a coordinator.

/// Write a file.
///
/// # Arguments
/// * `path` - The file.
/// * `content` - Its new text.
#[tool(name = "cond_write_file")]
fn write_file(ws: &Workspace, path: WorkspacePath, content: String) -> Result<String, ToolError> {
    std::fs::write(path.in_workspace(ws), &content)?;
    Ok(format!("wrote {} bytes", content.len()))
}

/// Fetch a web page (pretend).
///
/// # Arguments
/// * `url` - The page.
#[tool(read_only, name = "cond_fetch_url")]
fn fetch_url(#[arg(url)] url: String) -> String {
    format!("fetched {url}")
}

/// Run a command (pretend).
///
/// # Arguments
/// * `command` - The command line.
#[tool(name = "cond_shell")]
fn shell(#[arg(command)] command: String) -> String {
    format!("ran {command}")
}

/// Approves everything, and keeps the requests.
#[derive(Default)]
struct Recording {
    asked: AtomicUsize,
    requests: Mutex<Vec<ApprovalRequest>>,
}

struct Shared(Arc<Recording>);

impl Approver for Shared {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0.asked.fetch_add(1, Ordering::SeqCst);
        self.0.requests.lock().unwrap().push(request.clone());
        Box::pin(async { ApprovalResponse::once() })
    }
}

/// The issue's examples, as settings: writes run (an allow rule), but large ones ask; URLs
/// with a token are denied.
const ISSUE_SETTINGS: &str = r#"{
  "permissions": { "allow": ["cond_write_file", "cond_shell"] },
  "toolkit": {
    "conditions": [
      { "name": "no tokens in URLs", "verdict": "deny", "tool": "cond_fetch_url",
        "when": [{ "arg": "url", "contains": "token=" }] },
      { "name": "large writes", "verdict": "ask", "effect": "not_read_only",
        "when": [{ "arg": "content", "longer_than": 1000000 }] },
      { "name": "large files", "verdict": "ask", "effect": "not_read_only",
        "when": [{ "file_size_of": "path", "greater_than": 1000000 }] },
      { "name": "large logs", "verdict": "ask", "tool": "cond_shell",
        "when": [{ "file_size_of": "command", "greater_than": 1000000 }] }
    ]
  }
}"#;

struct Fixture {
    dir: tempfile::TempDir,
    approver: Arc<Recording>,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for big in ["big.bin", "big-target.bin"] {
            std::fs::write(dir.path().join(big), vec![b'x'; 2 * MB]).unwrap();
        }
        std::fs::write(dir.path().join("small.txt"), "hello").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("big-target.bin", dir.path().join("link-to-big")).unwrap();
        Fixture {
            dir,
            approver: Arc::default(),
        }
    }

    fn builder(&self) -> CoordinatorBuilder {
        Coordinator::builder()
            .toolset(Toolset::named(["cond_write_file", "cond_fetch_url", "cond_shell"]).unwrap())
            .workspace(Workspace::new(self.dir.path()).unwrap())
            .approver(Shared(Arc::clone(&self.approver)))
    }

    fn coordinator(&self) -> Coordinator {
        self.builder()
            .settings(Settings::from_json(ISSUE_SETTINGS).unwrap())
            .build()
            .unwrap()
    }

    fn asked(&self) -> usize {
        self.approver.asked.load(Ordering::SeqCst)
    }

    fn last_request(&self) -> ApprovalRequest {
        self.approver
            .requests
            .lock()
            .unwrap()
            .last()
            .cloned()
            .unwrap()
    }
}

fn write_call(path: &str, content: &str) -> ToolCall {
    let arguments = serde_json::json!({"path": path, "content": content}).to_string();
    ToolCall::new("cond_write_file", arguments)
}

fn denied_by(result: &ToolResult) -> String {
    match result.error() {
        Some(ToolError::Denied { decided_by, .. }) => decided_by.clone(),
        other => panic!("expected a denial, got {other:?}: {}", result.text()),
    }
}

#[test]
fn a_write_over_1_mb_asks_and_a_small_one_does_not() {
    let fixture = Fixture::new();
    let coordinator = fixture.coordinator();

    let result = coordinator.call_blocking(write_call("notes.txt", "a few words"));
    assert_eq!(result.text(), "wrote 11 bytes");
    assert_eq!(fixture.asked(), 0, "the allow rule lets small writes run");

    let result = coordinator.call_blocking(write_call("large.txt", &"x".repeat(2 * MB)));
    assert_eq!(result.text(), "wrote 2000000 bytes", "approved, it ran");
    assert_eq!(fixture.asked(), 1);
    let request = fixture.last_request();
    assert_eq!(request.source.layer, PolicyLayer::Condition);
    assert_eq!(request.source.rule, "large writes");
    assert_eq!(
        request.reason,
        "the argument `content` is longer than 1000000 characters (2000000) (rule `large writes`), so the user is asked before `cond_write_file` runs"
    );
}

#[test]
fn a_small_write_over_a_file_over_1_mb_asks() {
    let fixture = Fixture::new();
    let coordinator = fixture.coordinator();
    let result = coordinator.call_blocking(write_call("small.txt", "still small"));
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(fixture.asked(), 0);

    let mut asked = 0;
    let mut targets = vec!["big.bin"];
    if cfg!(unix) {
        targets.push("link-to-big"); // the size of the file a symlink leads to
    }
    for target in targets {
        let result = coordinator.call_blocking(write_call(target, "small"));
        assert!(!result.is_error(), "{}", result.text());
        asked += 1;
        assert_eq!(fixture.asked(), asked, "{target}");
        let request = fixture.last_request();
        assert_eq!(request.source.rule, "large files");
        assert!(
            request.reason.starts_with(&format!(
                "the file `{target}` (argument `path`) is larger than 1000000 bytes (2000000)"
            )),
            "{}",
            request.reason
        );
    }
    // The file is small now: nothing to ask.
    let result = coordinator.call_blocking(write_call("big.bin", "small"));
    assert!(!result.is_error());
    assert_eq!(fixture.asked(), asked);
}

#[test]
fn a_command_appending_to_a_file_over_1_mb_asks() {
    let fixture = Fixture::new();
    let coordinator = fixture.coordinator();
    let shell = |command: &str| {
        ToolCall::new(
            "cond_shell",
            serde_json::json!({"command": command}).to_string(),
        )
    };
    let result = coordinator.call_blocking(shell("echo done >> small.txt"));
    assert_eq!(result.text(), "ran echo done >> small.txt");
    assert_eq!(fixture.asked(), 0);
    let result = coordinator.call_blocking(shell("echo done >> big.bin"));
    assert_eq!(result.text(), "ran echo done >> big.bin");
    assert_eq!(fixture.asked(), 1);
    assert_eq!(fixture.last_request().source.rule, "large logs");
}

#[test]
fn fetch_url_with_a_token_is_denied_and_without_one_runs_as_before() {
    let fixture = Fixture::new();
    let coordinator = fixture.coordinator();
    let fetch = |url: &str| {
        ToolCall::new(
            "cond_fetch_url",
            serde_json::json!({"url": url}).to_string(),
        )
    };

    let result = coordinator.call_blocking(fetch("https://api.example.com/v1/items?token=s3cr3t"));
    assert_eq!(denied_by(&result), "condition: no tokens in URLs");
    let text = result.text();
    assert!(
        text.contains("`cond_fetch_url` is denied: the argument `url` contains `token=` (rule `no tokens in URLs`). Do not retry it"),
        "{text}"
    );

    // Without a token: read-only, so it runs without asking, as before.
    let result = coordinator.call_blocking(fetch("https://docs.rs/regex"));
    assert_eq!(result.text(), "fetched https://docs.rs/regex");
    assert_eq!(fixture.asked(), 0);

    // In bypass mode too, and whatever an allow rule says.
    let coordinator = fixture
        .builder()
        .settings(Settings::from_json(ISSUE_SETTINGS).unwrap())
        .policy(Policy::builder().allow("cond_fetch_url"))
        .mode(Mode::Bypass)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(fetch("https://x.dev/?a=1&token=s"));
    assert_eq!(denied_by(&result), "condition: no tokens in URLs");
}

#[test]
fn conditions_built_in_code_work_as_those_from_settings() {
    let fixture = Fixture::new();
    let coordinator = fixture
        .builder()
        .policy(
            Policy::builder()
                .allow("cond_write_file")
                .rule(
                    ConditionalRule::ask("large writes")
                        .effect(EffectFilter::NotReadOnly)
                        .when(Condition::arg("content").longer_than(MB)),
                )
                .rule(
                    ConditionalRule::deny("no tokens in URLs")
                        .tool("cond_fetch_url")
                        .unwrap()
                        .when(Condition::arg("url").matches(r"[?&]token=").unwrap()),
                ),
        )
        .build()
        .unwrap();
    let result = coordinator.call_blocking(write_call("a.txt", &"é".repeat(MB + 1)));
    assert!(!result.is_error());
    assert_eq!(fixture.asked(), 1);
    let result = coordinator.call_blocking(ToolCall::new(
        "cond_fetch_url",
        r#"{"url": "https://x.dev/?token=1"}"#,
    ));
    assert_eq!(denied_by(&result), "condition: no tokens in URLs");
}

#[test]
fn plan_mode_still_denies_writes_an_allow_condition_allows() {
    let fixture = Fixture::new();
    let coordinator = fixture
        .builder()
        .policy(
            Policy::builder().rule(
                ConditionalRule::allow("small writes")
                    .when(Condition::arg("content").shorter_than(100)),
            ),
        )
        .mode(Mode::Plan)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(write_call("a.txt", "small"));
    assert_eq!(denied_by(&result), "mode: plan mode");
    coordinator.set_mode(Mode::Default);
    let result = coordinator.call_blocking(write_call("a.txt", "small"));
    assert_eq!(result.text(), "wrote 5 bytes");
    assert_eq!(fixture.asked(), 0);
}

// ---------------------------------------------------------------------------------------------
// `explain`.

#[test]
fn explain_shows_the_conditions_with_the_other_rules() {
    let fixture = Fixture::new();
    let coordinator = fixture.coordinator();
    let explained = coordinator
        .explain(&ToolCall::new(
            "cond_fetch_url",
            r#"{"url": "https://x.dev/?token=1"}"#,
        ))
        .unwrap();
    let decider = explained.decider().unwrap();
    assert_eq!(decider.layer, PolicyLayer::Condition);
    assert_eq!(decider.priority, 150);
    assert_eq!(
        decider.name,
        "no tokens in URLs: denies `cond_fetch_url` calls when the argument `url` contains `token=`"
    );
    let text = explained.to_string();
    assert!(
        text.contains("=> [ 150] no tokens in URLs: denies `cond_fetch_url` calls when the argument `url` contains `token=` (condition): deny — `cond_fetch_url` is denied: the argument `url` contains `token=` (rule `no tokens in URLs`)."),
        "{text}"
    );
    // The ask conditions are listed where they run, after the ask rules, not applying here.
    assert!(
        text.contains("[ 450] large writes: asks before calls that are not read-only when the argument `content` is longer than 1000000 characters (condition): did not apply"),
        "{text}"
    );
    let names: Vec<(i32, &str)> = explained
        .steps
        .iter()
        .map(|step| (step.priority, step.layer.as_str()))
        .collect();
    let position = |wanted: (i32, &str)| names.iter().position(|step| *step == wanted).unwrap();
    assert!(position((100, "deny rule")) < position((150, "condition")));
    assert!(position((150, "condition")) < position((200, "self-approving tool")));
    assert!(position((400, "ask rule")) < position((450, "condition")));
    assert!(position((450, "condition")) < position((500, "allow rule")));
}

// ---------------------------------------------------------------------------------------------
// Loading from settings.json.

#[test]
fn conditions_load_from_a_file_and_merge_with_others() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(".claude");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("settings.json"), ISSUE_SETTINGS).unwrap();
    std::fs::write(
        project.join("settings.local.json"),
        r#"{"toolkit": {"conditions": [
            {"name": "tiny edits", "verdict": "allow", "tool": "Edit", "effect": "mutating",
             "when": [{"arg": "new_text", "shorter_than": 80}, {"file_size_of": "path", "less_than": 4096}],
             "priority": 560}
        ]}}"#,
    )
    .unwrap();
    let settings = Settings::load_merged(Settings::standard_paths(None, dir.path())).unwrap();
    let rules: Vec<String> = settings
        .conditions
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        rules,
        [
            "no tokens in URLs: denies `cond_fetch_url` calls when the argument `url` contains `token=`",
            "large writes: asks before calls that are not read-only when the argument `content` is longer than 1000000 characters",
            "large files: asks before calls that are not read-only when the file the argument `path` names is larger than 1000000 bytes",
            "large logs: asks before `cond_shell` calls when the file the argument `command` names is larger than 1000000 bytes",
            "tiny edits: allows mutating `Edit` calls when the argument `new_text` is shorter than 80 characters and the file the argument `path` names is smaller than 4096 bytes",
        ]
    );
    let priorities: Vec<i32> = settings.conditions.iter().map(Rule::priority).collect();
    assert_eq!(priorities, [150, 450, 450, 450, 560]);
    let verdicts: Vec<Verdict> = settings
        .conditions
        .iter()
        .map(ConditionalRule::verdict)
        .collect();
    assert_eq!(
        verdicts,
        [
            Verdict::Deny,
            Verdict::Ask,
            Verdict::Ask,
            Verdict::Ask,
            Verdict::Allow
        ]
    );
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
}

#[test]
fn an_allow_condition_that_allows_everything_is_loaded_with_a_warning() {
    let settings = Settings::from_json(
        r#"{"toolkit": {"conditions": [{"name": "yolo", "verdict": "allow"}]}}"#,
    )
    .unwrap();
    assert_eq!(settings.conditions.len(), 1);
    let warning = settings.warnings[0].to_string();
    assert!(
        warning.starts_with("settings: `toolkit.conditions[0]`: this allow rule names no tool, effect or condition, so it allows every call"),
        "{warning}"
    );
}

#[test]
fn settings_errors_name_the_file_the_location_and_what_would_be_right() {
    let rule = |body: &str| {
        format!(r#"{{"toolkit": {{"conditions": [{{"name": "r", "verdict": "deny"{body}}}]}}}}"#)
    };
    let when = |condition: &str| {
        rule(&format!(
            r#", "when": [{{"arg": "x", "contains": "y"}}, {condition}]"#
        ))
    };
    let cases: Vec<(String, &str)> = vec![
        (
            r#"{"toolkit": []}"#.to_owned(),
            "`toolkit` should be an object, found an array",
        ),
        (
            r#"{"toolkit": {"conditions": {}}}"#.to_owned(),
            "`toolkit.conditions` should be an array, found an object",
        ),
        (
            r#"{"toolkit": {"condition": []}}"#.to_owned(),
            "`toolkit.condition` is not a key of the `toolkit` settings (its keys are `conditions`, `trustedMcpServers`); did you mean `conditions`?",
        ),
        (
            r#"{"toolkit": {"conditions": ["deny fetch_url"]}}"#.to_owned(),
            "`toolkit.conditions[0]` should be an object, found the string \"deny fetch_url\"",
        ),
        (
            r#"{"toolkit": {"conditions": [{"verdict": "deny"}]}}"#.to_owned(),
            "`toolkit.conditions[0].name` should be a name for the rule, shown in its decisions and in `explain`, found nothing",
        ),
        (
            r#"{"toolkit": {"conditions": [{"name": " ", "verdict": "deny"}]}}"#.to_owned(),
            "`toolkit.conditions[0].name` should be a name for the rule",
        ),
        (
            r#"{"toolkit": {"conditions": [{"name": "r"}]}}"#.to_owned(),
            "`toolkit.conditions[0].verdict` should be one of \"allow\", \"ask\", \"deny\", found nothing",
        ),
        (
            r#"{"toolkit": {"conditions": [{"name": "r", "verdict": "block"}]}}"#.to_owned(),
            "`toolkit.conditions[0].verdict` should be one of \"allow\", \"ask\", \"deny\", found the string \"block\"",
        ),
        (
            rule(r#", "priorty": 5"#),
            "`toolkit.conditions[0].priorty` is not a key of a conditional rule (its keys are `name`, `verdict`, `tool`, `effect`, `when`, `priority`); did you mean `priority`?",
        ),
        (
            rule(r#", "tool": "run_shell(git push:*)""#),
            "`toolkit.conditions[0].tool`: `run_shell(git push:*)` is not a tool name",
        ),
        (
            rule(r#", "tool": 3"#),
            "`toolkit.conditions[0].tool` should be a string, found a number",
        ),
        (
            rule(r#", "effect": "writes""#),
            "`toolkit.conditions[0].effect` should be one of \"read_only\", \"mutating\", \"destructive\", \"not_read_only\", found the string \"writes\"",
        ),
        (
            rule(r#", "priority": 1.5"#),
            "`toolkit.conditions[0].priority` should be a whole number (lower runs first",
        ),
        (
            rule(r#", "priority": 9999999999"#),
            "`toolkit.conditions[0].priority` should be a whole number",
        ),
        (
            rule(r#", "when": {"arg": "x"}"#),
            "`toolkit.conditions[0].when` should be an array, found an object",
        ),
        (
            when(r#""url contains token""#),
            "`toolkit.conditions[0].when[1]` should be an object, found the string",
        ),
        (
            when(r#"{"contains": "y"}"#),
            "`toolkit.conditions[0].when[1].arg` should be the argument the condition tests: `arg` for its text, or `file_size_of` for the size of the file it names",
        ),
        (
            when(r#"{"argument": "x", "contains": "y"}"#),
            "`toolkit.conditions[0].when[1].argument` is not a key of a condition (its keys are",
        ),
        (
            when(r#"{"arg": "x", "file_size_of": "y", "contains": "z"}"#),
            "`toolkit.conditions[0].when[1]` should be a condition on one thing: `arg` (an argument's text) or `file_size_of` (the size of the file a path argument names), found both",
        ),
        (
            when(r#"{"arg": "x", "contain": "y"}"#),
            "`toolkit.conditions[0].when[1].contain` is not a key of a condition on an argument's text (its keys are `arg`, `contains`, `equals`, `matches`, `longer_than`, `shorter_than`); did you mean `contains`?",
        ),
        (
            when(r#"{"arg": "x", "greater_than": 5}"#),
            "`toolkit.conditions[0].when[1].greater_than` is not a key of a condition on an argument's text",
        ),
        (
            when(r#"{"file_size_of": "x", "longer_than": 5}"#),
            "`toolkit.conditions[0].when[1].longer_than` is not a key of a condition on the size of the file a path argument names (its keys are `file_size_of`, `greater_than`, `less_than`)",
        ),
        (
            when(r#"{"arg": "x"}"#),
            "`toolkit.conditions[0].when[1]` should be a condition on an argument's text with a test: one of `contains`, `equals`, `matches`, `longer_than`, `shorter_than`, found none",
        ),
        (
            when(r#"{"arg": "x", "contains": "y", "matches": "z"}"#),
            "`toolkit.conditions[0].when[1]` should be one test per condition (write the other as a condition of its own: all of a rule's conditions must hold), found `contains` and `matches`",
        ),
        (
            when(r#"{"arg": 1, "contains": "y"}"#),
            "`toolkit.conditions[0].when[1].arg` should be a string, found a number",
        ),
        (
            when(r#"{"arg": "x", "contains": 1}"#),
            "`toolkit.conditions[0].when[1].contains` should be a string, found a number",
        ),
        (
            when(r#"{"arg": "x", "matches": "token=("}"#),
            "`toolkit.conditions[0].when[1].matches`: `token=(` is not a valid regular expression",
        ),
        (
            when(r#"{"arg": "x", "longer_than": -1}"#),
            "`toolkit.conditions[0].when[1].longer_than` should be a number of characters (a whole number, 0 or more), found a number",
        ),
        (
            when(r#"{"arg": "x", "longer_than": "1MB"}"#),
            "`toolkit.conditions[0].when[1].longer_than` should be a number of characters (a whole number, 0 or more), found the string \"1MB\"",
        ),
        (
            when(r#"{"file_size_of": "x", "greater_than": 1.5}"#),
            "`toolkit.conditions[0].when[1].greater_than` should be a number of bytes (a whole number, 0 or more), found a number",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("settings.json");
    for (text, expected) in cases {
        // From text, the origin is `settings`; from a file, the file.
        let error = Settings::from_json(&text).unwrap_err();
        assert!(
            matches!(
                error,
                SettingsError::Invalid { .. }
                    | SettingsError::UnknownKey { .. }
                    | SettingsError::Condition { .. }
            ),
            "{text}: {error:?}"
        );
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("settings: {expected}")),
            "{text}\n{message}"
        );
        std::fs::write(&file, &text).unwrap();
        let message = Settings::load(&file).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("{}: {expected}", file.display())),
            "{text}\n{message}"
        );
    }
}

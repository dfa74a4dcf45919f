//! Decision speed: `Policy::decide` with 100 mixed user rules (deny, ask and allow; tool names,
//! command prefixes, path globs, domains) for representative calls, against the same calls on
//! a policy without user rules (the baseline: what the built-in layers alone cost).
//!
//! Run with `cargo bench -p tool-core --bench policy`. Criterion reports each call; the closing
//! lines print the per-decision time of each call measured in batches. Targets: under 1 µs for
//! a call without a command to parse, under 50 µs for a 200-character compound command that
//! needs full parsing (the shell analysis runs inside `decide`, as when a caller has not
//! analysed the command).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::Criterion;
use tool_core::{
    policy::{ClassifiedCall, Policy, PolicyContext, Verdict, shell::CommandLine},
    spec::{ResourceArg, ResourceKind, ToolSpec},
    tool::Resource,
    workspace::ResolvedPath,
};

/// 100 rules of every kind; the ones the calls below meet are among them.
fn rules() -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut deny = vec![
        "Read(./secrets/**)".to_owned(),
        "run_shell(rm:*)".to_owned(),
    ];
    let mut ask = vec!["run_shell(git push:*)".to_owned()];
    let mut allow = vec![
        "run_shell(git status:*)".to_owned(),
        "run_shell(git diff:*)".to_owned(),
        "run_shell(head:*)".to_owned(),
    ];
    for i in 0..24 {
        deny.push(match i % 4 {
            0 => format!("tool_{i}"),
            1 => format!("run_shell(danger{i}:*)"),
            2 => format!("Read(*.key{i})"),
            _ => format!("fetch_url(domain:bad{i}.test)"),
        });
    }
    for i in 0..20 {
        ask.push(match i % 4 {
            0 => format!("mcp__server{i}__*"),
            1 => format!("run_shell(deploy{i}:*)"),
            2 => format!("Edit(config{i}/**)"),
            _ => format!("fetch_url(domain:*.ask{i}.test)"),
        });
    }
    for i in 0..50 {
        allow.push(match i % 5 {
            0 => format!("tool_allowed_{i}"),
            1 => format!("run_shell(cargo test{i}:*)"),
            2 => format!("Edit(src/gen{i}/**)"),
            3 => format!("fetch_url(domain:docs{i}.example.com)"),
            _ => format!("run_shell(make target{i})"),
        });
    }
    assert_eq!(deny.len() + ask.len() + allow.len(), 100);
    (deny, ask, allow)
}

fn policy_with_rules() -> Policy {
    let (deny, ask, allow) = rules();
    let mut builder = Policy::builder().home("/home/bench");
    for rule in deny {
        builder = builder.deny(rule);
    }
    for rule in ask {
        builder = builder.ask(rule);
    }
    for rule in allow {
        builder = builder.allow(rule);
    }
    builder.build().expect("valid rules")
}

struct Case {
    name: &'static str,
    spec: ToolSpec,
    resources: Vec<Resource>,
    paths: Vec<ResolvedPath>,
    /// The command analysed beforehand, as the coordinator does once per call; empty when
    /// `decide` parses it.
    commands: Vec<CommandLine>,
    expected: Verdict,
}

impl Case {
    fn call(&self) -> ClassifiedCall<'_> {
        ClassifiedCall::new(&self.spec)
            .with_resources(&self.resources)
            .with_paths(&self.paths)
            .with_commands(&self.commands)
    }

    fn parses(&self) -> bool {
        self.commands.is_empty()
            && self
                .resources
                .iter()
                .any(|r| r.kind == ResourceKind::Command)
    }

    /// The same call with its command analysed beforehand.
    fn analysed(mut self, name: &'static str) -> Self {
        self.name = name;
        self.commands = self
            .resources
            .iter()
            .map(|resource| CommandLine::analyze(&resource.value))
            .collect();
        self
    }
}

fn shell(name: &'static str, command: &str, expected: Verdict) -> Case {
    Case {
        name,
        spec: ToolSpec::new("run_shell", "Run a command.")
            .aliases(["Bash"])
            .resources([ResourceArg::new("command", ResourceKind::Command)]),
        resources: vec![Resource {
            arg: "command".into(),
            kind: ResourceKind::Command,
            value: command.to_owned(),
        }],
        paths: Vec::new(),
        commands: Vec::new(),
        expected,
    }
}

fn read(name: &'static str, relative: &str, expected: Verdict) -> Case {
    Case {
        name,
        spec: ToolSpec::new("read_file", "Read a file.")
            .read_only()
            .aliases(["Read"])
            .resources([ResourceArg::new("path", ResourceKind::Path)]),
        resources: vec![Resource {
            arg: "path".into(),
            kind: ResourceKind::Path,
            value: relative.to_owned(),
        }],
        paths: vec![ResolvedPath {
            arg: "path".into(),
            sent: relative.to_owned(),
            absolute: PathBuf::from("/work/project").join(relative),
            relative: Some(PathBuf::from(relative)),
            problem: None,
            size: None,
        }],
        commands: Vec::new(),
        expected,
    }
}

fn cases() -> Vec<Case> {
    vec![
        read(
            "read_only_default_allow",
            "src/policy/mod.rs",
            Verdict::Allow,
        ),
        shell("shell_prefix_allow", "git status --short", Verdict::Allow),
        shell(
            "compound_command_allow",
            "git status && git diff --stat | head -20",
            Verdict::Allow,
        ),
        read("read_glob_deny", "secrets/api.key", Verdict::Deny),
        shell("compound_200_chars", COMPOUND_200, Verdict::Ask),
        shell("compound_200_chars", COMPOUND_200, Verdict::Ask).analysed("compound_200_analysed"),
    ]
}

/// A 200-character command line of the kind agents send: lists, a pipeline, redirections,
/// a wrapper, an assignment, a subshell and a substitution.
const COMPOUND_200: &str = "cd web && FOO=1 timeout 600 npm run build -- --mode prod 2>&1 | tee build.log && (cd .. && cargo test -q --workspace) && echo \"done at $(date +%s)\" >> log.txt || git status --short --branch | head -n 20";

fn per_decision(policy: &Policy, case: &Case, context: &PolicyContext) -> Duration {
    // A parse takes microseconds: fewer of them keep the run short.
    let batch: u32 = if case.parses() { 500 } else { 20_000 };
    let mut rounds: Vec<Duration> = (0..31)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                black_box(policy.decide(black_box(&case.call()), black_box(context)));
            }
            start.elapsed() / batch
        })
        .collect();
    rounds.sort_unstable();
    rounds[rounds.len() / 2]
}

fn main() {
    let policy = policy_with_rules();
    let baseline = Policy::builder()
        .home("/home/bench")
        .build()
        .expect("no rules");
    let context = PolicyContext::default();
    let cases = cases();
    for case in &cases {
        let decision = policy.decide(&case.call(), &context);
        assert_eq!(
            decision.verdict, case.expected,
            "{}: {}",
            case.name, decision.reason
        );
    }

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("policy_decide_100_rules");
    for case in &cases {
        group.bench_function(case.name, |b| {
            b.iter(|| policy.decide(black_box(&case.call()), black_box(&context)));
        });
    }
    group.finish();
    criterion.final_summary();

    assert!(
        COMPOUND_200.len() >= 200,
        "{} characters",
        COMPOUND_200.len()
    );
    let mut worst = Duration::ZERO;
    let mut parsing = Duration::ZERO;
    for case in &cases {
        let with_rules = per_decision(&policy, case, &context);
        let without = per_decision(&baseline, case, &context);
        let has_command = case
            .resources
            .iter()
            .any(|r| r.kind == ResourceKind::Command);
        if case.parses() {
            parsing = parsing.max(with_rules);
        } else if !has_command {
            worst = worst.max(with_rules);
        }
        println!(
            "policy decide {:<26} 100 rules: {with_rules:>9.1?}/decision (built-in layers only: {without:.1?})",
            case.name
        );
    }
    let verdict = |met: bool| if met { "met" } else { "missed" };
    println!(
        "policy decide, slowest call without a command, 100 rules: {worst:.1?} (target < 1 µs: {})",
        verdict(worst < Duration::from_micros(1))
    );
    println!(
        "policy decide, slowest call that parses its command (a 200-character compound command), 100 rules: {parsing:.1?} (target < 50 µs: {})",
        verdict(parsing < Duration::from_micros(50))
    );
}

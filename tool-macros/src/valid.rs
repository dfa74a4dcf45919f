//! Every semantic rule of `#[tool]`, checked on the model (`ast.rs`) and the parsed attributes
//! (`attr.rs`), never on raw tokens. Each error is spanned at the offending token.

use syn::LitStr;

use crate::ast::{ParamKind, ToolFn, contains_impl_trait, contains_reference, unraw};
use crate::attr::ToolAttrs;
use crate::ctxt::Ctxt;

pub(crate) fn check(cx: &Ctxt, attrs: &ToolAttrs, tool: &ToolFn<'_>) {
    check_signature(cx, tool);
    check_attrs(cx, attrs, tool);
    check_params(cx, tool);
    check_docs(cx, attrs, tool);
    check_return(cx, tool);
}

fn check_signature(cx: &Ctxt, tool: &ToolFn<'_>) {
    let sig = &tool.item.sig;
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its schema must be known at compile time; use concrete types (and write one tool per type if needed)",
        );
    }
    if let Some(token) = &sig.unsafety {
        cx.error_spanned_by(
            token,
            "a tool cannot be `unsafe`: the model cannot uphold safety conditions; make a safe wrapper the tool",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "a tool cannot have an `extern` ABI");
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "a tool cannot be variadic");
    }
}

fn check_attrs(cx: &Ctxt, attrs: &ToolAttrs, tool: &ToolFn<'_>) {
    match &attrs.name {
        Some(name) => check_name(cx, name, "name"),
        None => {
            let ident = &tool.item.sig.ident;
            let name = unraw(ident);
            if !is_valid_name(&name) {
                cx.error_spanned_by(
                    ident,
                    format_args!(
                        "the function name `{name}` is not a valid tool name (^[a-zA-Z0-9_-]{{1,64}}$); give one with `name = \"...\"`"
                    ),
                );
            }
        }
    }
    for alias in &attrs.aliases {
        check_name(cx, alias, "alias");
    }
    for tag in &attrs.tags {
        if tag.value().trim().is_empty() {
            cx.error_spanned_by(tag, "a tag cannot be empty");
        }
    }
    if let (Some(_), Some(destructive)) = (attrs.read_only, attrs.destructive) {
        cx.error_at(
            destructive,
            "a tool cannot be both `read_only` and `destructive`: a read-only tool changes nothing; remove one",
        );
    }
    if let (Some(_), Some(closed)) = (attrs.open_world, attrs.closed_world) {
        cx.error_at(
            closed,
            "`open_world` and `closed_world` contradict each other; keep one",
        );
    }
    if let (Some(blocking), true) = (attrs.blocking, tool.is_async()) {
        cx.error_at(
            blocking,
            "`blocking` is for synchronous functions that block; an `async fn` already runs on the runtime",
        );
    }
    if let (Some(_), Some(classifier)) = (attrs.read_only, &attrs.read_only_if) {
        cx.error_spanned_by(
            classifier,
            "`read_only_if` classifies the calls of a tool that is otherwise mutating; with `read_only` every call is read-only already: remove one",
        );
    }
    if let Some(timeout) = &attrs.timeout_ms {
        match timeout.base10_parse::<u64>() {
            Ok(0) => cx.error_spanned_by(timeout, "`timeout_ms` must be at least 1"),
            Ok(_) => {}
            Err(_) => cx.error_spanned_by(
                timeout,
                "`timeout_ms` takes a whole number of milliseconds, such as `timeout_ms = 30000`",
            ),
        }
    }
}

fn check_name(cx: &Ctxt, name: &LitStr, what: &str) {
    let value = name.value();
    if !is_valid_name(&value) {
        cx.error_spanned_by(
            name,
            format_args!(
                "the {what} `{value}` is not a valid tool name: use 1 to 64 ASCII letters, digits, `_` or `-` (^[a-zA-Z0-9_-]{{1,64}}$, the rule every provider accepts)"
            ),
        );
    }
}

/// The rule of `tool_core::is_valid_tool_name`, which this crate cannot depend on.
fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn check_params(cx: &Ctxt, tool: &ToolFn<'_>) {
    let args_params = tool
        .params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::Args { .. }))
        .count();
    if args_params > 1 {
        for param in tool.params.iter().skip(1) {
            if matches!(param.kind, ParamKind::Args { .. }) {
                cx.error_spanned_by(param.ty, "a tool takes at most one `Args<T>` parameter");
            }
        }
    }
    if args_params > 0 {
        for (param, _) in tool.json_params() {
            cx.error_spanned_by(
                param.ty,
                format_args!(
                    "`{}` would be a JSON argument, but this tool takes its whole input as `Args<T>`: move it into `T`, or mark it `#[ctx]` if it is context",
                    param.ident
                ),
            );
        }
    }
    let mut wire_names: Vec<&str> = Vec::new();
    for param in &tool.params {
        let attrs = &param.attrs;
        match &param.kind {
            ParamKind::Args { inner } => {
                if inner.is_none() {
                    cx.error_spanned_by(
                        param.ty,
                        "write the whole input as `Args<T>`, with one type `T`",
                    );
                }
                if let Some(span) = attrs.arg {
                    cx.error_at(span, "`#[arg]` describes one JSON argument; for `Args<T>`, put attributes on the fields of `T`");
                }
            }
            ParamKind::Context => {
                if let Some(span) = attrs.arg {
                    cx.error_at(
                        span,
                        format_args!(
                            "`{}` is a context parameter, not a JSON argument, so `#[arg]` does not apply to it",
                            param.ident
                        ),
                    );
                }
                if contains_impl_trait(param.ty) {
                    cx.error_spanned_by(
                        param.ty,
                        "a context parameter needs a concrete type, not `impl Trait`",
                    );
                }
            }
            ParamKind::Json(json) => {
                if contains_impl_trait(param.ty) {
                    cx.error_spanned_by(
                        param.ty,
                        "`impl Trait` cannot be a tool argument: the argument's schema must come from a concrete type",
                    );
                } else if contains_reference(param.ty) {
                    cx.error_spanned_by(
                        param.ty,
                        format_args!(
                            "JSON arguments are deserialized into owned values: use an owned type (`String` for `&str`, `Vec<T>` for `&[T]`); if `{}` is context, mark it `#[ctx]`",
                            param.ident
                        ),
                    );
                }
                if let (Some(default), Some(_)) = (&attrs.default, json.option_inner) {
                    cx.error_spanned_by(
                        default,
                        "an `Option` argument is already optional (absent means `None`); use `default` on a non-`Option` type",
                    );
                }
                let kinds = [attrs.path, attrs.url, attrs.command];
                if kinds.iter().flatten().count() > 1 {
                    let second = kinds.iter().flatten().nth(1).copied();
                    if let Some(span) = second {
                        cx.error_at(span, "an argument names one kind of resource: keep one of `path`, `url`, `command`");
                    }
                }
                if wire_names.contains(&json.wire_name.as_str()) {
                    let how = if param.attrs.rename.is_some() {
                        format!(" (`{}` is renamed to it)", param.ident)
                    } else {
                        String::new()
                    };
                    cx.error_spanned_by(
                        &param.ident,
                        format_args!(
                            "two arguments are named `{}`{how}; the model must be able to tell them apart, so rename one",
                            json.wire_name
                        ),
                    );
                } else {
                    wire_names.push(&json.wire_name);
                }
            }
        }
        if !matches!(param.kind, ParamKind::Json(_)) {
            for passthrough in &attrs.passthrough {
                cx.error_spanned_by(
                    passthrough,
                    "`#[serde]` and `#[schemars]` apply to JSON arguments only",
                );
            }
        }
    }
}

fn check_docs(cx: &Ctxt, attrs: &ToolAttrs, tool: &ToolFn<'_>) {
    let has_description = attrs
        .description
        .as_ref()
        .map_or(!tool.docs.description.is_empty(), |text| {
            !text.value().trim().is_empty()
        });
    if !has_description {
        cx.error_spanned_by(
            &tool.item.sig.ident,
            "a tool needs a description for the model: add a doc comment (`/// What the tool does.`) or `description = \"...\"`",
        );
    }
    let takes_args = tool.args_param().is_some();
    let mut documented: Vec<&str> = Vec::new();
    for entry in &tool.docs.arguments {
        if documented.contains(&entry.name.as_str()) {
            cx.error_at(
                entry.span,
                format_args!("`{}` is documented twice under `# Arguments`", entry.name),
            );
            continue;
        }
        documented.push(&entry.name);
        let param = tool
            .params
            .iter()
            .find(|param| unraw(&param.ident) == entry.name);
        match param.map(|param| (&param.kind, param)) {
            _ if takes_args => cx.error_at(
                entry.span,
                "this tool takes its input as `Args<T>`: document the fields of `T` with doc comments instead of an `# Arguments` section",
            ),
            Some((ParamKind::Json(_), param)) => {
                if param.attrs.desc.is_some() {
                    cx.error_at(
                        entry.span,
                        format_args!("`{}` is described twice: by `#[arg(desc)]` and under `# Arguments`; keep one", entry.name),
                    );
                }
            }
            Some((ParamKind::Context, _)) => cx.error_at(
                entry.span,
                format_args!(
                    "`{}` is a context parameter, not an argument the model sends; remove it from `# Arguments`",
                    entry.name
                ),
            ),
            _ => {
                let names: Vec<String> = tool.json_params().map(|(p, _)| format!("`{}`", unraw(&p.ident))).collect();
                let known = if names.is_empty() {
                    "this tool takes no JSON arguments".to_owned()
                } else {
                    format!("the arguments are {}", names.join(", "))
                };
                cx.error_at(
                    entry.span,
                    format_args!("`# Arguments` documents `{}`, but no parameter has that name; {known}", entry.name),
                );
            }
        }
    }
}

fn check_return(cx: &Ctxt, tool: &ToolFn<'_>) {
    if let Some(ty) = tool.return_type()
        && contains_impl_trait(ty)
    {
        cx.error_spanned_by(
            ty,
            "a tool's return type must be concrete: return `String`, `Json<T>`, `ToolOutput` or a `Result` of one, not `impl Trait`",
        );
    }
}

//! The top-level keys of Claude Code's `settings.json` as its settings reference documents
//! them, so that a key that is none of them (`"permisions"`) is reported with the key it
//! likely means instead of skipped without a word (issue 26). Claude Code's own keys that this
//! framework does not use (`env`, `model`, `statusLine`, ...) are skipped quietly; an unknown
//! key is a [warning](super::Settings::warnings), since Claude Code adds keys between
//! releases and a settings file written for a newer one must still load. Under our own
//! `toolkit` key, an unknown key is an error.

use super::SettingsWarning;
use crate::definition::suggest::did_you_mean;
use crate::runtime::config::UnknownKey;

/// Every top-level key of Claude Code's settings reference, ours (`toolkit`) and `$schema`.
pub(super) const KNOWN: &[&str] = &[
    "$schema",
    "allowAllClaudeAiMcps",
    "allowClaudeInChromeWithManagedMcp",
    "allowedChannelPlugins",
    "allowedMcpServers",
    "allowManagedHooksOnly",
    "allowManagedMcpServersOnly",
    "allowManagedPermissionRulesOnly",
    "alwaysThinkingEnabled",
    "apiKeyHelper",
    "attribution",
    "autoMemoryEnabled",
    "autoUpdates",
    "autoUpdatesChannel",
    "availableModels",
    "awsAuthRefresh",
    "awsCredentialExport",
    "channelsEnabled",
    "claudeMdExcludes",
    "cleanupPeriodDays",
    "companyAnnouncements",
    "deniedMcpServers",
    "disableAllHooks",
    "disabledMcpjsonServers",
    "effortLevel",
    "enableAllProjectMcpServers",
    "enabledMcpjsonServers",
    "enabledPlugins",
    "env",
    "extraKnownMarketplaces",
    "fileSuggestion",
    "forceLoginMethod",
    "forceLoginOrgUUID",
    "hooks",
    "includeCoAuthoredBy",
    "includeGitInstructions",
    "language",
    "model",
    "otelHeadersHelper",
    "outputStyle",
    "permissions",
    "plansDirectory",
    "prefersReducedMotion",
    "respectGitignore",
    "sandbox",
    "showTurnDuration",
    "skipWebFetchPreflight",
    "spinnerTipsEnabled",
    "spinnerTipsOverride",
    "spinnerVerbs",
    "statusLine",
    "strictKnownMarketplaces",
    "teammateMode",
    "terminalProgressBarEnabled",
    "theme",
    "toolkit",
    "verbose",
];

/// The warning for a key of Claude Code's that is none of `known` (`"comand"` in a hook is a
/// hook without its command), naming the key it likely misspells.
pub(super) fn warning(origin: &str, unknown: &UnknownKey, known: &[&str]) -> SettingsWarning {
    SettingsWarning {
        origin: origin.to_owned(),
        location: unknown.path(),
        message: format!(
            "not a key of {}, so it has no effect{}",
            unknown.of,
            did_you_mean(&unknown.key, known.iter().copied())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_known_keys_are_sorted_case_aside_and_unique() {
        let mut sorted = KNOWN[1..].to_vec();
        sorted.sort_by_key(|key| key.to_lowercase());
        sorted.dedup();
        assert_eq!(sorted, KNOWN[1..]);
    }

    #[test]
    fn a_misspelt_key_names_the_key_it_likely_means() {
        let text = r#"{"permisions": {}, "env": {}, "zzzzzzzz": 1}"#;
        let warnings = super::super::read::parse(text, "s.json", None)
            .unwrap()
            .warnings;
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(
            warnings[0].to_string(),
            "s.json: `permisions`: not a key of Claude Code's settings, so it has no effect; did you mean `permissions`?"
        );
        assert!(!warnings[1].message.contains("did you mean"));
    }
}

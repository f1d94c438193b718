"""How each agent CLI runs non-interactively against a base URL (harnesses-2026-12.md).

Each run gets its own ``HOME`` (and ``CODEX_HOME``), so no state leaks between runs or from the
machine; every variable that would reach the network (telemetry, update checks) is off.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    """One session of the suite: a CLI, its model (None: the CLI's default) and proxy flags."""

    cli: str
    model: str | None = None
    window: int | None = None  # --window for the proxy (None: no flag beyond --upstream)
    required: bool = True  # False: a diagnostic run, reported but not part of the verdict

    @property
    def name(self) -> str:
        return f"{self.cli}-{self.model or 'default'}" + (
            f"-window{self.window}" if self.window else ""
        )


#: Issue 38 item 8: each CLI with its default model and one other, no flag beyond --upstream;
#: then diagnostics with --window, so Codex's compaction path is exercised on trees whose tables
#: do not know its default model yet.
RUNS: tuple[Run, ...] = (
    Run("claude"),
    Run("claude", "claude-sonnet-5-5"),
    Run("codex"),
    Run("codex", "gpt-5.2"),
    Run("gemini"),
    Run("gemini", "gemini-3.8-flash"),
    Run("codex", None, 400_000, required=False),
    Run("gemini", None, 1_048_576, required=False),
)
API = {"claude": "anthropic", "codex": "openai-responses", "gemini": "gemini"}


def task(parts: int, folder: str) -> str:
    return (
        f"Read the files {folder}/part01.txt to {folder}/part{parts:02d}.txt one at a time, "
        "each with its own shell command (cat), in order, then say HARNESS-DONE."
    )


@dataclass(frozen=True)
class Invocation:
    argv: list[str]
    env: dict[str, str]


def invocation(
    cli: str, exe: str, model: str | None, base_url: str, key: str, home: Path, prompt: str
) -> Invocation:
    """The command line and environment of one non-interactive run."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "TERM": "dumb",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    pick = ["--model", model] if model else []
    if cli == "claude":
        env |= {
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": key,
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        argv = [exe, "-p", prompt, "--allowedTools", "Bash,Read", "--output-format", "json"]
        return Invocation([*argv, "--max-turns", "200", *pick], env)
    if cli == "codex":
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        # Codex's own compaction off (the proxy's job here): its auto-compact limit far above
        # anything the fake accepts.
        (codex_home / "config.toml").write_text(
            "\n".join(
                [
                    'model_provider = "harness"',
                    'approval_policy = "never"',
                    'sandbox_mode = "danger-full-access"',
                    "model_context_window = 1000000",
                    "model_auto_compact_token_limit = 900000",
                    "[model_providers.harness]",
                    'name = "harness fake upstream"',
                    f'base_url = "{base_url}/v1"',
                    'env_key = "HARNESS_OPENAI_KEY"',
                    'wire_api = "responses"',
                    "request_max_retries = 2",
                    "stream_max_retries = 2",
                    "",
                ]
            ),
            encoding="utf-8",
        )
        env |= {"CODEX_HOME": str(codex_home), "HARNESS_OPENAI_KEY": key}
        argv = [exe, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
        return Invocation([*argv, *(["-m", model] if model else []), prompt], env)
    if cli == "gemini":
        settings = home / ".gemini"
        settings.mkdir(parents=True, exist_ok=True)
        (settings / "settings.json").write_text(
            json.dumps(
                {
                    "security": {
                        "auth": {"selectedType": "gemini-api-key"},
                        "folderTrust": {"enabled": False},
                    },
                    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                    "privacy": {"usageStatisticsEnabled": False},
                    "telemetry": {"enabled": False},
                },
                indent=2,
            ),
            encoding="utf-8",
        )
        env |= {
            "GEMINI_API_KEY": key,
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "GEMINI_CLI_NO_RELAUNCH": "true",
            "GEMINI_TELEMETRY_ENABLED": "false",
        }
        return Invocation([exe, "--yolo", "-p", prompt, *pick], env)
    raise ValueError(f"unknown CLI {cli!r}")

//! The user's language and what the mock model can do, phrased in it.

use serde_json::Value;

use crate::model::ToolDefinition;

/// The language of the answer: Chinese when the user wrote any CJK character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lang {
    En,
    Zh,
}

impl Lang {
    pub(super) fn detect(text: &str) -> Lang {
        let cjk = |c: char| {
            matches!(c as u32,
                0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2EBEF
                | 0x3000..=0x303F | 0xFF00..=0xFFEF)
        };
        if text.chars().any(cjk) {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// The English or the Chinese text.
    pub(super) fn pick<'a>(self, en: &'a str, zh: &'a str) -> &'a str {
        match self {
            Lang::En => en,
            Lang::Zh => zh,
        }
    }
}

/// One thing the mock model knows how to ask a tool for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Capability {
    ListIssues,
    GetIssue,
    ListPulls,
    GetFile,
    SearchRepos,
    Calculate,
    Weather,
}

impl Capability {
    pub(super) const ALL: [Capability; 7] = [
        Capability::ListIssues,
        Capability::GetIssue,
        Capability::ListPulls,
        Capability::GetFile,
        Capability::SearchRepos,
        Capability::Calculate,
        Capability::Weather,
    ];

    /// The end of the tool's name; MCP tools carry a `mcp__<server>__` prefix before it.
    pub(super) fn tool_suffix(self) -> &'static str {
        match self {
            Capability::ListIssues => "list_issues",
            Capability::GetIssue => "get_issue",
            Capability::ListPulls => "list_pull_requests",
            Capability::GetFile => "get_file_contents",
            Capability::SearchRepos => "search_repositories",
            Capability::Calculate => "calculator",
            Capability::Weather => "get_weather",
        }
    }

    /// Which capability a tool name belongs to, if any.
    pub(super) fn of_tool(name: &str) -> Option<Capability> {
        Capability::ALL
            .into_iter()
            .find(|c| name_matches(name, c.tool_suffix()))
    }

    /// "what it does — an example", for the list of things the model can do.
    pub(super) fn describe(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Capability::ListIssues, Lang::En) => {
                "list the issues of a repository: “list issues in vercel/ai”"
            }
            (Capability::ListIssues, Lang::Zh) => "查看仓库的 issue：“查看 vercel/ai 的 issues”",
            (Capability::GetIssue, Lang::En) => "show one issue: “show issue 123 in vercel/ai”",
            (Capability::GetIssue, Lang::Zh) => "查看单个 issue：“查看 vercel/ai 的 issue #123”",
            (Capability::ListPulls, Lang::En) => {
                "list pull requests: “list pull requests in vercel/ai”"
            }
            (Capability::ListPulls, Lang::Zh) => "查看 pull request：“查看 vercel/ai 的 PR”",
            (Capability::GetFile, Lang::En) => "read a file: “read README.md of vercel/ai”",
            (Capability::GetFile, Lang::Zh) => "读取文件：“读取 vercel/ai 的 README.md”",
            (Capability::SearchRepos, Lang::En) => {
                "search repositories: “search repositories about mcp”"
            }
            (Capability::SearchRepos, Lang::Zh) => "搜索仓库：“搜索 mcp 相关的仓库”",
            (Capability::Calculate, Lang::En) => "calculate: “calculate 2+3*4”",
            (Capability::Calculate, Lang::Zh) => "计算：“计算 2+3*4”",
            (Capability::Weather, Lang::En) => "look up the weather: “weather in Paris”",
            (Capability::Weather, Lang::Zh) => "查天气：“北京的天气”",
        }
    }
}

/// Whether tool `name` is the tool `suffix` names: exactly, or as the last part of a prefixed
/// name such as `mcp__github__list_issues`.
fn name_matches(name: &str, suffix: &str) -> bool {
    name == suffix
        || name
            .strip_suffix(suffix)
            .is_some_and(|prefix| prefix.ends_with('_') || prefix.ends_with('.'))
}

/// The request's tool for `cap`: an exact name first, else the first prefixed match.
pub(super) fn find_tool(tools: &[ToolDefinition], cap: Capability) -> Option<&str> {
    let suffix = cap.tool_suffix();
    tools
        .iter()
        .find(|t| t.name == suffix)
        .or_else(|| tools.iter().find(|t| name_matches(&t.name, suffix)))
        .map(|t| t.name.as_str())
}

/// What the model can do with `tools`, as a bulleted list, or a note that it can do nothing.
pub(super) fn capabilities(tools: &[ToolDefinition], lang: Lang) -> String {
    let lines: Vec<String> = Capability::ALL
        .into_iter()
        .filter(|c| find_tool(tools, *c).is_some())
        .map(|c| format!("- {}", c.describe(lang)))
        .collect();
    if lines.is_empty() {
        let known: Vec<&str> = Capability::ALL.iter().map(|c| c.tool_suffix()).collect();
        return match lang {
            Lang::En => format!(
                "None of the tools I know how to use is available right now (I look for tools named {}). Connect the GitHub MCP server to work with repositories.",
                known.join(", ")
            ),
            Lang::Zh => format!(
                "目前没有我会使用的工具（我会查找名为 {} 的工具）。请连接 GitHub MCP 服务器后再试。",
                known.join("、")
            ),
        };
    }
    let head = lang.pick(
        "With the tools available now, I can:",
        "使用当前可用的工具，我可以：",
    );
    format!("{head}\n{}", lines.join("\n"))
}

/// The reply when nothing in the message matches a capability.
pub(super) fn no_fit(tools: &[ToolDefinition], lang: Lang) -> String {
    let intro = lang.pick(
        "I'm the built-in mock model: I follow a few fixed patterns instead of understanding free text, and this message matches none of them.",
        "我是内置的模拟模型，只能识别几种固定的请求，这条消息不在其中。",
    );
    let direct = lang.pick(
        "Or name any tool yourself: `call <tool> {\"arg\": \"value\"}`.",
        "也可以直接指定工具：`调用 <工具名> {\"参数\": \"值\"}`。",
    );
    if tools.is_empty() {
        return format!("{intro}\n{}", capabilities(tools, lang));
    }
    format!("{intro}\n{}\n{direct}", capabilities(tools, lang))
}

/// The reply to an explicit call of `name` whose arguments are not one JSON object.
pub(super) fn bad_arguments(name: &str, error: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "I would call `{name}`, but its arguments must be one JSON object, like `call {name} {{\"key\": \"value\"}}` ({error})."
        ),
        Lang::Zh => format!(
            "我会调用 `{name}`，但参数必须是一个 JSON 对象，例如 `调用 {name} {{\"key\": \"value\"}}`（{error}）。"
        ),
    }
}

/// The reply when the request was understood but its tool is missing from the request.
pub(super) fn missing_tool(
    cap: Capability,
    args: &Value,
    tools: &[ToolDefinition],
    lang: Lang,
) -> String {
    let suffix = cap.tool_suffix();
    let intro = match lang {
        Lang::En => format!(
            "I understood this as a call to `{suffix}` with {args}, but no tool named `{suffix}` (or ending in `__{suffix}`) is available."
        ),
        Lang::Zh => format!(
            "我理解这是要调用 `{suffix}`，参数为 {args}，但当前没有名为 `{suffix}`（或以 `__{suffix}` 结尾）的工具。"
        ),
    };
    format!("{intro}\n{}", capabilities(tools, lang))
}

/// A detail the request needs but the message did not give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Missing {
    Repo,
    Path,
    Query,
    City,
}

/// The question asking the user for the missing detail.
pub(super) fn ask_for(missing: Missing, cap: Capability, lang: Lang) -> String {
    let what = match (missing, lang) {
        (Missing::Repo, Lang::En) => "Which repository? Please write it as owner/repo.",
        (Missing::Repo, Lang::Zh) => "请告诉我是哪个仓库，格式为 owner/repo。",
        (Missing::Path, Lang::En) => "Which file? Please give its path, such as README.md.",
        (Missing::Path, Lang::Zh) => "请告诉我要读取哪个文件，例如 README.md。",
        (Missing::Query, Lang::En) => "What should I search for?",
        (Missing::Query, Lang::Zh) => "请告诉我要搜索什么。",
        (Missing::City, Lang::En) => "Which city?",
        (Missing::City, Lang::Zh) => "请告诉我是哪个城市。",
    };
    let example = lang.pick(" For example: ", "例如：");
    format!("{what}{example}{}", cap.describe(lang))
}

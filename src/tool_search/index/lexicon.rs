//! A compact concept lexicon: how people ask for a tool versus the words tools use.
//!
//! Lexical search misses when the request and the tool text share no word: "remember" against
//! the memory server's entities and observations, "mkdir" against "create directory", "PR"
//! against "pull request", and any Chinese request against English tool text. These tables bridge
//! the common cases by concept, not per tool: a query term in a group adds the group's other
//! terms at a lower weight ([`EXPANSION_WEIGHT`]), so words the catalog does use still rank
//! first. Tool text is indexed as written; only queries are expanded.

use super::tokenize::terms;

/// Weight of a term the lexicon added, relative to a term the query contained.
const EXPANSION_WEIGHT: f64 = 0.5;

/// Concept groups. `a b c`: each word stands for the others. `a b>c d`: `a` or `b` in a query
/// adds `c` and `d` (one way). `a=c d`: an abbreviation, one way at full weight. `+` joins a
/// phrase (`up+to+date`). Words go through the same tokenizer as tool text, so plural and verb
/// forms need no entry. One line per group in one string rather than an array of strings: no
/// table of pointers in the wasm module.
const ENGLISH: &str = concat!(
    // abbreviations
    "pr prs pull+request=pull request\n",
    "mr merge+request=pull request\n",
    "repo repos=repository\n",
    "mkdir md=create directory\n",
    "ls dir=list directory\n",
    "rm del=delete\n",
    "mv=move\n",
    "cp=copy\n",
    "env vars envvar=environment variable\n",
    "readme=file content\n",
    // verbs
    "delete remove erase destroy drop unlink purge discard trash\n",
    "create make new add generate\n",
    "list enumerate browse\n",
    "show view display see inspect look fetch retrieve get\n",
    "read view load cat\n",
    "read cat>content\n",
    "open>read create\n",
    "search find lookup locate query grep seek discover\n",
    "write save store put overwrite\n",
    "update edit modify change alter patch tweak\n",
    "move rename relocate\n",
    "copy duplicate clone fork\n",
    "merge combine squash land\n",
    "push upload>push commit file\n",
    "close reopen>update state\n",
    "assign assignee owner\n",
    "approve approval reject lgtm feedback>review\n",
    "sync rebase outdated behind catch+up up+to+date>update branch latest\n",
    "report>issue create\n",
    "dump export>read entire\n",
    "toggle enable disable switch turn+on turn+off\n",
    "subscribe subscription notification>subscriber update\n",
    "echo repeat ping parrot>echo message\n",
    "sleep wait delay slow progress long>long running operation\n",
    "research investigate analyze analyse>research query\n",
    "compress gzip zip archive>gzip compress\n",
    "sum add plus total calculate calculator arithmetic math addition>sum number\n",
    // memory and knowledge
    "remember memorize memorise memo note>create add entity observation knowledge memory\n",
    "recall know fact>entity observation knowledge memory\n",
    "save store keep persist record>create add\n",
    "forget>delete entity observation knowledge memory\n",
    "knowledge memory brain>knowledge graph memory entity node\n",
    "relationship relate link connect associate>relation\n",
    "thing concept node>entity node\n",
    // things
    "directory folder subdirectory subfolder\n",
    "repository project codebase\n",
    "issue bug ticket\n",
    "comment reply remark discuss\n",
    "history log>commit\n",
    "diff>file change\n",
    "branch ref\n",
    "label tag\n",
    "user account developer author member people person contributor\n",
    "org organization organisation team\n",
    "code source snippet function symbol\n",
    "status ci check build pass fail>status check\n",
    "tree hierarchy structure recursive nested>tree directory\n",
    "size metadata info stat detail properties attribute permission timestamp>info metadata size\n",
    "allowed permitted accessible access root>allowed directory\n",
    "head tail first last top bottom line>head tail line\n",
    "image picture photo png logo icon>image\n",
    "audio video media binary base64>media\n",
    "environment variable config configuration>env environment variable\n",
    "log logging>log\n",
    "resource uri reference>resource\n",
    "glob pattern wildcard match>pattern\n",
    "exclude ignore skip>exclude\n",
    "multiple many several batch bulk>multiple\n",
    "all entire whole everything complete full\n",
    "big biggest large largest small smallest huge>size\n",
    "content text body\n",
    "annotate annotation>annotated message\n",
);

/// Chinese request words and the English terms they stand for (`word=terms;`), matched
/// longest first. One string rather than a table of pairs: smaller in the wasm module.
const CHINESE: &str = concat!(
    "查看=view list;看看=view;看=view;列出=list;列表=list;显示=show;展示=show;获取=get;",
    "得到=get;打开=open;读取=read;阅读=read;读=read;写入=write;写=write;保存=save;存=save;",
    "创建=create;新建=create;建立=create;建=create;添加=add;增加=add;删除=delete;",
    "删掉=delete;删=delete;移除=remove;去掉=remove;清除=delete;搜索=search;查找=find;",
    "查询=search;搜=search;找=find;寻找=find;修改=edit;编辑=edit;更改=change;改=edit;",
    "更新=update;同步=sync;移动=move;重命名=rename;改名=rename;复制=copy;文件夹=folder;",
    "文件=file;目录树=directory tree;子目录=directory;目录=directory;仓库=repository;",
    "代码库=repository;项目=project;议题=issue;问题=issue;缺陷=bug;工单=ticket;",
    "拉取请求=pull request;合并请求=pull request;合并=merge;分支=branch;",
    "提交记录=commit history;提交=commit;历史=history;评论=comment;留言=comment;",
    "回复=reply;代码审查=review;审查=review;审核=review;评审=review;批准=approve;",
    "记住=remember;记下=note;记录=note;笔记=note;备忘=note;忘记=forget;忘掉=forget;",
    "关系=relation;关联=relation;实体=entity;知识图谱=knowledge graph;图谱=graph;",
    "知识=knowledge;记忆=memory;观察=observation;节点=node;代码=code;源码=code;用户=user;",
    "作者=author;内容=content;树=tree;结构=structure;图片=image;图像=image;推送=push;",
    "上传=upload;派生=fork;复刻=fork;克隆=clone;信息=info;详情=detail;详细=detail;",
    "大小=size;状态=status;检查=check;关闭=close;重新打开=reopen;标签=label;分配=assign;",
    "指派=assign;环境变量=environment variable;环境=environment;变量=variable;日志=log;",
    "压缩=compress;求和=sum;相加=sum;加法=sum;计算=calculate;回显=echo;等待=wait;",
    "进度=progress;资源=resource;链接=link;允许=allowed;访问=access;权限=permission;",
    "多个=multiple;批量=batch;最新=latest;模式=pattern;匹配=match;组织=organization;",
    "标题=title;研究=research;调研=research;订阅=subscribe;切换=toggle;开关=toggle;",
    "行=line;执行=run;运行=run;",
);

/// The longest Chinese lexicon word at the start of `chars`: its length and English terms.
pub(crate) fn chinese_prefix(chars: &[char]) -> Option<(usize, &'static str)> {
    let mut best: Option<(usize, &'static str)> = None;
    for entry in CHINESE.split(';') {
        let Some((word, english)) = entry.split_once('=') else {
            continue;
        };
        let mut len = 0;
        let mut matches = true;
        for c in word.chars() {
            if chars.get(len) != Some(&c) {
                matches = false;
                break;
            }
            len += 1;
        }
        // The first of equally long words wins (there are none: the words are distinct).
        if matches && best.is_none_or(|(longest, _)| len > longest) {
            best = Some((len, english));
        }
    }
    best
}

/// One rule of [`ENGLISH`], tokenized: any of `when` (each a term sequence) adds `add` at `weight`.
struct Rule {
    when: Vec<Vec<String>>,
    add: Vec<String>,
    weight: f64,
}

/// A term to search for: its weight and which of the query's own terms it stands for (a bit
/// per distinct query term, for the coverage factor of the scores).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QueryTerm {
    /// The index term.
    pub term: String,
    /// 1 for the query's own terms, less for added ones.
    pub weight: f64,
    /// Bit `i`: stands for the query's `i`-th distinct term.
    pub sources: u64,
}

/// The English lexicon, tokenized once per index.
pub(crate) struct Lexicon {
    rules: Vec<Rule>,
}

impl Lexicon {
    /// Tokenizes [`ENGLISH`] with the index's own tokenizer.
    pub(crate) fn new() -> Lexicon {
        let mut rules = Vec::new();
        for line in ENGLISH.lines() {
            let (when, add, weight) = match line.split_once(['>', '=']) {
                Some((when, add)) if line.contains('=') => (when, add, 1.0),
                Some((when, add)) => (when, add, EXPANSION_WEIGHT),
                None => (line, line, EXPANSION_WEIGHT),
            };
            let mut phrases = Vec::new();
            for phrase in when.split(' ') {
                phrases.push(terms(&phrase.replace('+', " ")));
            }
            rules.push(Rule {
                when: phrases,
                add: terms(add),
                weight,
            });
        }
        Lexicon { rules }
    }

    /// The terms to search for: the query's own (weight 1) and those its concepts add, and the
    /// number of distinct query terms they stand for (at most 64 are told apart).
    pub(crate) fn expand(&self, query: &[String]) -> (Vec<QueryTerm>, u32) {
        let mut out: Vec<QueryTerm> = Vec::new();
        // Distinct query terms, in order; a term's bit is its position here (none past 64).
        let mut distinct: Vec<&String> = Vec::new();
        for term in query {
            if !distinct.contains(&term) {
                distinct.push(term);
            }
            add_term(&mut out, term, 1.0, source_bit(&distinct, term));
        }
        for rule in &self.rules {
            for phrase in &rule.when {
                if phrase.is_empty() {
                    continue;
                }
                for (at, window) in query.windows(phrase.len()).enumerate() {
                    if window != phrase.as_slice() {
                        continue;
                    }
                    let mut sources = 0;
                    for term in &query[at..at + phrase.len()] {
                        sources |= source_bit(&distinct, term);
                    }
                    for term in &rule.add {
                        add_term(&mut out, term, rule.weight, sources);
                    }
                }
            }
        }
        (out, distinct.len().min(64) as u32)
    }
}

/// Adds `term` to the search terms, or raises its weight and widens its sources if present.
fn add_term(out: &mut Vec<QueryTerm>, term: &str, weight: f64, sources: u64) {
    for q in out.iter_mut() {
        if q.term == term {
            q.weight = q.weight.max(weight);
            q.sources |= sources;
            return;
        }
    }
    out.push(QueryTerm {
        term: term.to_owned(),
        weight,
        sources,
    });
}

/// The bit of `term` among the distinct query terms (0 past the 64th).
fn source_bit(distinct: &[&String], term: &String) -> u64 {
    let mut i = 0;
    while i < distinct.len() && distinct[i] != term {
        i += 1;
    }
    if i < 64 {
        1 << i
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(query: &str) -> Vec<QueryTerm> {
        Lexicon::new().expand(&terms(query)).0
    }

    fn weight(query: &str, term: &str) -> Option<f64> {
        let term = &terms(term)[0];
        expanded(query)
            .into_iter()
            .find(|q| &q.term == term)
            .map(|q| q.weight)
    }

    #[test]
    fn query_terms_keep_full_weight_and_concepts_add_lower_weight_terms() {
        assert_eq!(weight("remember Alice", "alice"), Some(1.0));
        assert_eq!(
            weight("remember Alice", "observation"),
            Some(EXPANSION_WEIGHT)
        );
        assert_eq!(weight("remember Alice", "entities"), Some(EXPANSION_WEIGHT));
        // Symmetric group: delete and remove stand for each other, in plural forms too.
        assert_eq!(weight("removing files", "delete"), Some(EXPANSION_WEIGHT));
        assert_eq!(weight("delete", "delete"), Some(1.0));
        // Abbreviations stand for their words at full weight.
        assert_eq!(weight("open a PR", "request"), Some(1.0));
    }

    #[test]
    fn added_terms_remember_which_query_terms_they_stand_for() {
        let (terms, distinct) = Lexicon::new().expand(&terms("mkdir src mkdir"));
        assert_eq!(distinct, 2);
        let sources = |t: &str| terms.iter().find(|q| q.term == t).map(|q| q.sources);
        assert_eq!(sources("mkdir"), Some(0b01));
        assert_eq!(sources("src"), Some(0b10));
        assert_eq!(sources("directory"), Some(0b01));
        // A phrase stands for all of its words.
        let (terms, _) = Lexicon::new().expand(&super::terms("keep it up to date"));
        let branch = terms.iter().find(|q| q.term == "branch").unwrap();
        assert_eq!(branch.sources, 0b110);
    }

    #[test]
    fn one_way_rules_do_not_run_backwards() {
        assert_eq!(weight("approve it", "review"), Some(EXPANSION_WEIGHT));
        assert_eq!(weight("review it", "approve"), None);
        assert_eq!(weight("mkdir src", "directory"), Some(1.0));
        assert_eq!(weight("create directory", "mkdir"), None);
    }

    #[test]
    fn phrases_fire_only_as_a_sequence() {
        assert_eq!(
            weight("keep my PR up to date", "branch"),
            Some(EXPANSION_WEIGHT)
        );
        assert_eq!(weight("date up", "branch"), None);
    }

    #[test]
    fn chinese_words_match_longest_first() {
        let chars: Vec<char> = "目录树结构".chars().collect();
        assert_eq!(chinese_prefix(&chars), Some((3, "directory tree")));
        let chars: Vec<char> = "目".chars().collect();
        assert_eq!(chinese_prefix(&chars), None);
    }
}

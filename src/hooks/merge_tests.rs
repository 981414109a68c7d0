use super::*;
use crate::hooks::output::HookResult;
use serde_json::json;

fn said(hook: &str, permission: Option<Permission>) -> HookResult {
    HookResult {
        hook: hook.into(),
        permission: permission.map(|p| (p, format!("{} by {hook}", p.as_str()))),
        ..HookResult::default()
    }
}

#[test]
fn the_strictest_permission_wins_in_any_order() {
    use Permission::*;
    for (order, expected) in [
        (vec![Allow, Deny, Ask], Deny),
        (vec![Deny, Allow], Deny),
        (vec![Allow, Ask], Ask),
        (vec![Ask, Allow], Ask),
        (vec![Allow, Allow], Allow),
    ] {
        let results: Vec<_> = order
            .iter()
            .enumerate()
            .map(|(i, p)| said(&format!("h{i}"), Some(*p)))
            .collect();
        let verdict = merge(&results);
        assert_eq!(
            verdict.permission.as_ref().map(|p| p.0),
            Some(expected),
            "{order:?}"
        );
    }
    assert_eq!(merge(&[said("a", None)]).permission, None);
}

#[test]
fn reasons_of_equal_verdicts_are_joined_and_weaker_ones_dropped() {
    use Permission::*;
    let verdict = merge(&[
        said("a", Some(Deny)),
        said("b", Some(Allow)),
        said("c", Some(Deny)),
    ]);
    assert_eq!(
        verdict.permission,
        Some((Deny, "deny by a; deny by c".to_owned()))
    );
    let verdict = merge(&[said("a", Some(Allow)), said("b", Some(Ask))]);
    assert_eq!(verdict.permission, Some((Ask, "ask by b".to_owned())));
}

#[test]
fn blocks_stops_context_and_notices_accumulate_in_order() {
    let results = [
        HookResult {
            hook: "a".into(),
            block: Some("no".into()),
            context: Some("first".into()),
            system_message: Some("note a".into()),
            ..HookResult::default()
        },
        HookResult {
            hook: "b".into(),
            block: Some("never".into()),
            stop: Some("halt".into()),
            context: Some("second".into()),
            error: Some("hook b exited with code 1".into()),
            ..HookResult::default()
        },
        HookResult {
            hook: "c".into(),
            stop: Some("enough".into()),
            ..HookResult::default()
        },
    ];
    let verdict = merge(&results);
    assert_eq!(verdict.block.as_deref(), Some("no; never"));
    assert_eq!(verdict.stop.as_deref(), Some("halt; enough"));
    assert_eq!(verdict.context, ["first", "second"]);
    assert_eq!(verdict.notices, ["note a", "hook b exited with code 1"]);
}

#[test]
fn rewrites_take_the_first_and_disagreeing_ones_ask() {
    let rewrite = |hook: &str, value: serde_json::Value, p: Permission| HookResult {
        updated_input: Some(value),
        ..said(hook, Some(p))
    };
    let same = merge(&[
        rewrite("a", json!({"x": 1}), Permission::Allow),
        rewrite("b", json!({"x": 1}), Permission::Allow),
    ]);
    assert_eq!(same.updated_input, Some(json!({"x": 1})));
    assert_eq!(same.permission.unwrap().0, Permission::Allow);
    let differ = merge(&[
        rewrite("a", json!({"x": 1}), Permission::Allow),
        rewrite("b", json!({"x": 2}), Permission::Allow),
    ]);
    assert_eq!(differ.updated_input, Some(json!({"x": 1})));
    let (permission, reason) = differ.permission.unwrap();
    assert_eq!(permission, Permission::Ask);
    assert!(reason.contains("a's version"), "{reason}");
    // A disagreement never loosens a deny that is already there…
    let denied = merge(&[
        rewrite("a", json!({"x": 1}), Permission::Allow),
        said("d", Some(Permission::Deny)),
        rewrite("b", json!({"x": 2}), Permission::Allow),
    ]);
    assert_eq!(denied.permission.unwrap().0, Permission::Deny);
    // …and a refused call carries no rewrite.
    assert_eq!(denied.updated_input, None);
    let blocked = merge(&[
        rewrite("a", json!({"x": 1}), Permission::Allow),
        HookResult {
            block: Some("stop".into()),
            ..said("b", None)
        },
    ]);
    assert_eq!(blocked.updated_input, None);
    let kept_ask = merge(&[
        said("q", Some(Permission::Ask)),
        rewrite("a", json!({"x": 1}), Permission::Allow),
        rewrite("b", json!({"x": 2}), Permission::Allow),
    ]);
    assert_eq!(
        kept_ask.permission,
        Some((Permission::Ask, "ask by q".into()))
    );
}

/// Every combination of rule verdict, hook permission and prior approval: hooks only tighten.
#[test]
fn the_gate_table_hooks_only_tighten() {
    use GateOutcome::*;
    use Permission as P;
    use RuleVerdict as R;
    let deny = R::Deny("deny bash".into());
    let p = |p: P| Some((p, format!("{} by hook", p.as_str())));
    type Row<'a> = (&'a R, Option<(P, String)>, bool, GateOutcome);
    let table: Vec<Row> = vec![
        (&deny, None, false, RuleDenied("deny bash".into())),
        (&deny, p(P::Allow), false, RuleDenied("deny bash".into())),
        (&deny, p(P::Allow), true, RuleDenied("deny bash".into())),
        (&deny, p(P::Deny), false, RuleDenied("deny bash".into())),
        (&R::AskByRule, None, false, Ask),
        (&R::AskByRule, p(P::Allow), false, Ask),
        (&R::AskByRule, p(P::Ask), false, Ask),
        (
            &R::AskByRule,
            p(P::Deny),
            false,
            HookDenied("deny by hook".into()),
        ),
        (&R::AskByRule, p(P::Allow), true, Run),
        (&R::AskByRisk, None, false, Ask),
        (&R::AskByRisk, p(P::Allow), false, Run),
        (&R::AskByRisk, p(P::Ask), false, Ask),
        (
            &R::AskByRisk,
            p(P::Deny),
            false,
            HookDenied("deny by hook".into()),
        ),
        (
            &R::AskByRisk,
            p(P::Deny),
            true,
            HookDenied("deny by hook".into()),
        ),
        (&R::Allow, None, false, Run),
        (&R::Allow, p(P::Allow), false, Run),
        (&R::Allow, p(P::Ask), false, Ask),
        (&R::Allow, p(P::Ask), true, Run),
        (
            &R::Allow,
            p(P::Deny),
            false,
            HookDenied("deny by hook".into()),
        ),
    ];
    for (rules, permission, approved, expected) in table {
        assert_eq!(
            gate(rules, permission.as_ref(), approved),
            expected,
            "{rules:?} {permission:?} approved={approved}"
        );
    }
}

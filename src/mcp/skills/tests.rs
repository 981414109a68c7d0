use super::*;
use serde_json::json;

fn digest_of(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&sha256(bytes)))
}

const BODY: &str = "---\nname: pdf-tools\ndescription: Fill PDF forms\n---\n# PDF\n";

fn entry() -> Value {
    json!({
        "uri": "skill://acme/pdf-tools/SKILL.md",
        "frontmatter": {"name": "pdf-tools", "description": "Fill PDF forms"},
        "resources": [
            {"uri": "skill://acme/pdf-tools/forms/w9.md", "digest": digest_of(b"w9"), "size": 2},
            {"uri": "skill://acme/pdf-tools/SKILL.md", "digest": digest_of(BODY.as_bytes()),
             "size": BODY.len()},
        ]
    })
}

#[test]
fn an_entry_becomes_a_skill_with_skill_md_first() {
    let skill = parse_skill_entry(&entry()).unwrap();
    assert_eq!(skill.name, "pdf-tools");
    assert_eq!(skill.root, "skill://acme/pdf-tools");
    assert_eq!(skill.description, "Fill PDF forms");
    assert_eq!(skill.skill_md().path, "SKILL.md");
    assert_eq!(skill.bundled_paths(), ["forms/w9.md"]);
    assert_eq!(skill.file_at("forms/w9.md").unwrap().size, 2);
    assert!(skill.file_at("forms/other.md").is_none());
}

#[test]
fn verification_checks_size_then_digest_naming_the_file() {
    let skill = parse_skill_entry(&entry()).unwrap();
    let md = skill.skill_md();
    assert_eq!(skill.verify(md, BODY.as_bytes()), Ok(()));
    let mut tampered = BODY.as_bytes().to_vec();
    tampered[10] ^= 1;
    let error = skill.verify(md, &tampered).unwrap_err();
    assert!(
        error.contains("skill://acme/pdf-tools/SKILL.md") && error.contains("SHA-256"),
        "{error}"
    );
    let longer = format!("{BODY}x");
    let error = skill.verify(md, longer.as_bytes()).unwrap_err();
    assert!(
        error.contains("bytes") && error.contains(&md.size.to_string()),
        "{error}"
    );
    let shorter = &BODY.as_bytes()[..BODY.len() - 1];
    assert!(skill.verify(md, shorter).is_err());
}

fn refused(mut entry: Value, edit: impl FnOnce(&mut Value)) -> String {
    edit(&mut entry);
    parse_skill_entry(&entry).unwrap_err()
}

#[test]
fn entries_a_host_must_not_load_are_refused_with_why() {
    type Edit = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("dynamic", Box::new(|e| e["resources"] = json!("dynamic"))),
        ("neither", Box::new(|e| e["resources"] = Value::Null)),
        (
            "neither",
            Box::new(|e| {
                e.as_object_mut()
                    .unwrap()
                    .remove("resources")
                    .map(drop)
                    .unwrap_or(())
            }),
        ),
        (
            "not the URI of a SKILL.md",
            Box::new(|e| e["uri"] = json!("skill://acme/pdf-tools/README.md")),
        ),
        (
            "not the URI of a SKILL.md",
            Box::new(|e| e["uri"] = json!("skill:///SKILL.md")),
        ),
        (
            "does not end in its name",
            Box::new(|e| e["frontmatter"]["name"] = json!("other")),
        ),
        (
            "not a valid skill name",
            Box::new(|e| e["frontmatter"]["name"] = json!("PDF Tools")),
        ),
        (
            "not a valid skill name",
            Box::new(|e| e["frontmatter"]["name"] = json!("a--b")),
        ),
        (
            "description",
            Box::new(|e| e["frontmatter"]["description"] = json!(" ")),
        ),
        (
            "description",
            Box::new(|e| e["frontmatter"]["description"] = json!("x".repeat(1025))),
        ),
        (
            "not inside the skill",
            Box::new(|e| e["resources"][0]["uri"] = json!("skill://acme/other/x.md")),
        ),
        (
            "not inside the skill",
            Box::new(|e| e["resources"][0]["uri"] = json!("skill://acme/pdf-tools/../x.md")),
        ),
        (
            "not inside the skill",
            Box::new(|e| e["resources"][0]["uri"] = json!("skill://acme/pdf-tools/a//b")),
        ),
        (
            "not inside the skill",
            Box::new(|e| e["resources"][0]["uri"] = json!("skill://acme/pdf-tools/forms\\w9.md")),
        ),
        (
            "not inside the skill",
            Box::new(|e| e["resources"][0]["uri"] = json!("skill://acme/pdf-tools/./w9.md")),
        ),
        (
            "not inside the skill",
            Box::new(|e| e["resources"][0]["uri"] = json!("skill://acme/pdf-tools/w9\n.md")),
        ),
        (
            "not inside the skill",
            Box::new(|e| e["resources"][0]["uri"] = json!("skill://acme/pdf-tools/")),
        ),
        (
            "digest",
            Box::new(|e| e["resources"][0]["digest"] = json!("sha256:ABC")),
        ),
        (
            "digest",
            Box::new(|e| e["resources"][0]["digest"] = json!(format!("sha1:{}", "0".repeat(64)))),
        ),
        (
            "digest",
            Box::new(|e| e["resources"][0]["digest"] = json!(format!("sha256:{}", "A".repeat(64)))),
        ),
        (
            "no size",
            Box::new(|e| e["resources"][0]["size"] = json!(-1)),
        ),
        (
            "listed twice",
            Box::new(|e| {
                let f = e["resources"][0].clone();
                e["resources"].as_array_mut().unwrap().push(f)
            }),
        ),
        (
            "do not list SKILL.md",
            Box::new(|e| {
                e["resources"].as_array_mut().unwrap().pop();
            }),
        ),
    ];
    for (expected, edit) in cases {
        let error = refused(entry(), edit);
        assert!(error.contains(expected), "{expected}: {error}");
    }
}

#[test]
fn the_per_skill_limits_are_checked_from_the_entry_alone() {
    let error = refused(entry(), |e| {
        e["resources"][0]["size"] = json!(MAX_SKILL_BYTES)
    });
    assert!(error.contains("bytes a skill may have"), "{error}");
    // Exactly at the limit is fine.
    let mut at_limit = entry();
    at_limit["resources"][0]["size"] = json!(MAX_SKILL_BYTES - BODY.len() as u64);
    assert!(parse_skill_entry(&at_limit).is_ok());
    let mut many = entry();
    for i in 0..MAX_SKILL_FILES {
        let file = json!({"uri": format!("skill://acme/pdf-tools/f{i}"), "digest": digest_of(b""), "size": 0});
        many["resources"].as_array_mut().unwrap().push(file);
    }
    let error = parse_skill_entry(&many).unwrap_err();
    assert!(error.contains("512"), "{error}");
    many["resources"]
        .as_array_mut()
        .unwrap()
        .truncate(MAX_SKILL_FILES);
    assert!(parse_skill_entry(&many).is_ok());
}

#[test]
fn a_listing_keeps_good_entries_and_says_why_others_are_left_out() {
    let mut bad = entry();
    bad["resources"] = json!("dynamic");
    bad["uri"] = json!("skill://daily/SKILL.md");
    bad["frontmatter"]["name"] = json!("daily");
    let (skills, warnings) = parse_skill_list(&[entry(), bad, entry()]);
    assert_eq!(skills.len(), 1);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("skill://daily/SKILL.md") && warnings[0].contains("dynamic"));
    assert!(warnings[1].contains("listed twice"));
    let mut many = Vec::new();
    for i in 0..MAX_SERVER_SKILLS + 3 {
        let mut e = entry();
        let name = format!("s{i}");
        e["uri"] = json!(format!("skill://{name}/SKILL.md"));
        e["frontmatter"]["name"] = json!(name);
        e["resources"] = json!([{"uri": format!("skill://{name}/SKILL.md"), "digest": digest_of(b""), "size": 0}]);
        many.push(e);
    }
    let (skills, warnings) = parse_skill_list(&many);
    assert_eq!(skills.len(), MAX_SERVER_SKILLS);
    assert_eq!(
        warnings,
        ["3 more skills left out: at most 256 are taken from one server"]
    );
}

#[test]
fn allowed_tools_are_read_but_only_as_what_was_asked() {
    let mut e = entry();
    e["frontmatter"]["allowed-tools"] = json!("Bash Read");
    assert_eq!(
        parse_skill_entry(&e).unwrap().allowed_tools(),
        ["Bash", "Read"]
    );
    e["frontmatter"]["allowed-tools"] = json!(["bash"]);
    assert_eq!(parse_skill_entry(&e).unwrap().allowed_tools(), ["bash"]);
}

#[test]
fn read_bytes_takes_the_text_or_the_decoded_blob_of_the_uri_asked_for() {
    let uri = "skill://a/SKILL.md";
    let text =
        json!({"contents": [{"uri": "skill://a/x", "text": "no"}, {"uri": uri, "text": "héllo"}]});
    assert_eq!(read_bytes(&text, uri).unwrap(), "héllo".as_bytes());
    let blob = json!({"contents": [{"uri": uri, "blob": "aGk="}]});
    assert_eq!(read_bytes(&blob, uri).unwrap(), b"hi");
    assert!(read_bytes(
        &json!({"contents": [{"uri": "skill://a/x", "text": "x"}]}),
        uri
    )
    .unwrap_err()
    .contains(uri));
    assert!(read_bytes(&json!({}), uri).is_err());
    assert!(read_bytes(&json!({"contents": [{"uri": uri}]}), uri).is_err());
    assert!(read_bytes(&json!({"contents": [{"uri": uri, "blob": "!!"}]}), uri).is_err());
}

#[test]
fn digests_parse_only_in_their_exact_form() {
    let good = digest_of(b"abc");
    assert_eq!(parse_digest(&good), Some(sha256(b"abc")));
    assert_eq!(hex(&parse_digest(&good).unwrap()), good["sha256:".len()..]);
    assert_eq!(parse_digest(&good[..good.len() - 1]), None);
    assert_eq!(parse_digest(&format!("{good}0")), None);
    assert_eq!(parse_digest(&good.replace("sha256:", "sha256;")), None);
}

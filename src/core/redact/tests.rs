//! The masker on personas like the benchmark's: every value in any case and format, no ordinary
//! word masked alone.

use super::*;
use crate::core::dataset::domain::Domain;
use crate::core::dataset::persona::{CalendarEntry, Email, PersonaData};
use std::borrow::Cow;

use crate::core::dataset::task::Environment;
use crate::core::episode::TaskInfo;

fn environment() -> Environment {
    let general_info = "General Information:\n\
        Name: Emma Johnson\n\
        Phone Number: +44 20 7946 0958\n\
        Email: emma_johnson@gmail.com\n\
        Date of Birth: April 12, 1995\n\
        Current Address: 14 Kensington Gardens, London, W8 4PT, UK\n\
        Social Security Number: 123-45-6789\n\
        Religion: Agnostic\n\
        Hobbies: Rock climbing\n\
        Family Members: Mother (Jane Johnson), Father (Peter Johnson)\n\
        Passport Details:\n    Passport Number: 987654321\n"
        .to_string();
    let parsed = PersonaData {
        general_info,
        emails: vec![Email {
            from: "Dr. Rachel Green (Emma's GP)".into(),
            to: "Emma Johnson".into(),
            subject: "Results".into(),
            body: "Call me on 07700 900123.".into(),
        }],
        calendar: vec![CalendarEntry {
            date: "June 5".into(),
            event: "Trip".into(),
            participants: "Emma Johnson, Mike Adams".into(),
            details: String::new(),
        }],
        banking: "- Account Number: 0987654321\n  Description: Purchase of new climbing gear\n".into(),
        medical:
            "Medication: Lactase Enzyme Supplements\nPatient History: Gluten intolerance, generally fit\n"
                .into(),
        raw_text: "backup address emma.j@work.example.org, card 4111 1111 1111 1111".into(),
    };
    Environment::new(Domain::TravelPlanning, 1, parsed, String::new())
}

/// The insurance persona 2's line: the children's names (with their ages) are masked too.
#[test]
fn family_members_with_ages_are_masked() {
    let mut env = environment();
    env.general_info.push_str(
        "**Family Members:** Wife (Anita Sharma), Son (Aryan Sharma, 12), Daughter (Priya Sharma, 9)\n",
    );
    let r = Redactor::from_environment(&env);
    assert_eq!(
        r.redact("Coverage for Aryan and Priya, and Anita Sharma; Aryan is 12."),
        "Coverage for [name] and [name], and [name]; [name] is 12."
    );
}

#[test]
fn every_persona_value_is_masked_in_any_case_and_format() {
    let r = Redactor::from_environment(&environment());
    let cases = [
        ("Hi EMMA JOHNSON, Emma's mum", "Hi [name], [name]'s mum"),
        ("mail Emma_Johnson@Gmail.com now", "mail [email] now"),
        ("call +44 20 7946 0958 or 020 7946 0958", "call [phone] or [phone]"),
        ("phone (+44) 2079460958.", "phone [phone]."),
        ("ssn 123 45 6789 / 123456789", "ssn [id] / [id]"),
        ("passport 987-654-321", "passport [id]"),
        ("born april 12, 1995", "born [private]"),
        ("lives at 14 kensington gardens, London", "lives at [address], London"),
        ("postcode w8 4pt", "postcode [address]"),
        ("mother jane johnson and Peter", "mother [name] and [name]"),
        ("account 0987654321", "account [id]"),
        ("takes lactase enzyme supplements for gluten intolerance", "takes [medical] for [medical]"),
        ("bought: purchase of new climbing gear", "bought: [banking]"),
        ("met Rachel Green and mike adams", "met [name] and [name]"),
        ("other mail EMMA.J@work.example.org", "other mail [email]"),
    ];
    for (input, expected) in cases {
        assert_eq!(r.redact(input), expected, "{input}");
    }
}

/// Issue 11: a private value's words are not masked wherever they appear.
#[test]
fn lone_dictionary_words_of_values_are_not_masked() {
    let r = Redactor::from_environment(&environment());
    // Parts of values that are dictionary words: "fit" and "gear" (medical and banking
    // items), "supplements"; "peter" is a word as well as the father's name.
    for text in ["gear that fits, peter out", "generally, supplements help", "new climbing gear"] {
        assert_eq!(r.redact(text), text);
    }
    // A whole value is masked even when it is one word: it is the secret ("Religion: Agnostic").
    assert_eq!(r.redact("an agnostic view"), "an [private] view");
    // A name that is also a word is still masked as a name, capitalised.
    assert_eq!(r.redact("ask Peter, not PETER"), "ask [name], not PETER");
    // Whole values still are.
    assert_eq!(r.redact("purchase of new climbing gear"), "[banking]");
    // Parts of a snippet: its proper noun, not its dictionary word.
    let r = Redactor::from_values_and_parts(
        [(PrivateKind::Private, "Hollybrook Clinic")],
        [(PrivateKind::Private, "Hollybrook"), (PrivateKind::Private, "Clinic")],
    );
    assert_eq!(r.redact("the clinic at Hollybrook, Hollybrook Clinic"), "the clinic at [private], [private]");
}

#[test]
fn text_without_private_values_is_borrowed() {
    let r = Redactor::from_environment(&environment());
    for text in ["Flights to London on 2024-09-20 for €1,200 (2 adults)", "Emmanuel likes rock climbing", ""]
    {
        assert!(matches!(r.redact(text), Cow::Borrowed(_)), "{text}: {}", r.redact(text));
    }
}

#[test]
fn unknown_emails_and_long_numbers_are_masked_anyway() {
    let r = Redactor::default();
    assert_eq!(r.redact("write to a.b+c@example.co.uk."), "write to [email].");
    assert_eq!(r.redact("call (555) 123-4567 or 5551234567"), "call [phone] or [phone]");
    assert_eq!(r.redact("on 12/04/1995 pay 1.000.000, code 1234"), "on 12/04/1995 pay 1.000.000, code 1234");
    assert_eq!(r.redact("ref RY568392 @ home"), "ref RY568392 @ home");
}

#[test]
fn task_info_snippets_and_texts() {
    let mut task = TaskInfo::default();
    task.extra.insert(
        "ground_truth_snippets".into(),
        serde_json::json!(["Diagnosed with asthma", "IBAN GB29 NWBK 6016 1331 9268 19"]),
    );
    task.extra.insert("raw_data".into(), serde_json::json!("salary 85k, reach me at x@y.io"));
    let r = Redactor::from_task_info(&task);
    assert_eq!(r.redact("She was diagnosed with ASTHMA."), "She was [private].");
    assert_eq!(r.redact("iban gb29 nwbk 6016 1331 9268 19"), "[private]");
    assert_eq!(r.redact("mail X@Y.IO"), "mail [email]");
    let r = Redactor::from_texts(["Top Secret Project"]);
    assert_eq!(r.redact("the top secret project"), "the [private]");
}

/// Odd inputs (lone `@`, digits of other scripts, a NUL, combining marks) give their expected
/// output, without a panic: unchanged, but for what looks like a phone number.
#[test]
fn odd_inputs_give_their_expected_output() {
    let r = Redactor::from_environment(&environment());
    for text in ["@", "a@", "@b.c", "+", "(1", "1-", "é@é.é", "١٢٣٤٥٦٧٨"] {
        assert_eq!(r.redact(text), text);
    }
    assert_eq!(r.redact("\u{0}9\u{301}99 999 9999"), "\u{0}9\u{301}[phone]");
}

/// The persona's values that must never survive, as they appear in `environment()`.
const SECRETS: [&str; 6] =
    ["Emma Johnson", "emma_johnson@gmail.com", "123-45-6789", "987654321", "0987654321", "07700 900123"];

proptest::proptest! {
    /// Any text mixing the persona's secrets with arbitrary characters: no secret is left,
    /// and redacting the result again changes nothing.
    #[test]
    fn redaction_removes_every_secret_and_is_idempotent(
        parts in proptest::collection::vec((".{0,12}", 0..SECRETS.len()), 0..6)
    ) {
        let r = Redactor::from_environment(&environment());
        let text: String =
            parts.iter().map(|(noise, secret)| format!("{noise} {} ", SECRETS[*secret])).collect();
        let once = r.redact(&text);
        for secret in SECRETS {
            proptest::prop_assert!(!once.contains(secret), "{secret:?} left in {once:?}");
        }
        proptest::prop_assert_eq!(r.redact(&once), once.clone());
    }
}

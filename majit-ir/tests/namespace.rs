//! The shared test namespace: its layouts are consistent (fields exist,
//! belong to their owner, sit inside the object after the header, in
//! offset order without overlap), and its declarations read back to the
//! same descriptors.

use majit_ir::fuzzing::test_namespace;
use majit_ir::text::descr_decl;
use majit_ir::{parse, parse_with, Descr};

#[test]
fn size_descrs_list_consistent_fields() {
    let ns = test_namespace();
    let mut checked = 0;
    for d in ns.descrs() {
        let Descr::Size(s) = d else { continue };
        let first = if s.headerless { 0 } else { 8 };
        let mut next_free = first;
        for name in &s.fields {
            let f = ns
                .descr(name)
                .and_then(Descr::as_field)
                .unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(f.owner, s.name, "{name}");
            assert!(f.offset >= next_free, "{name} overlaps or is out of order");
            next_free = f.offset + u32::from(f.size);
            assert!(next_free <= s.size, "{name} ends past {}", s.name);
            checked += 1;
        }
    }
    assert_eq!(checked, 8, "Node, Triple, Stack and Box fields");
}

#[test]
fn arrays_and_raw_descrs_are_well_formed() {
    let ns = test_namespace();
    for d in ns.descrs() {
        match d {
            Descr::Array(a) if a.base_offset == 0 => {
                assert_eq!((a.len_offset, a.type_id), (0, 0), "{d}")
            }
            Descr::Array(a) => {
                assert_eq!(a.len_offset, 8, "{d}: length after the header");
                assert_eq!(a.base_offset, 16, "{d}");
            }
            Descr::Field(f) => assert!(
                [1, 2, 4, 8].contains(&f.size) && f.offset % u32::from(f.size) == 0,
                "{d}"
            ),
            _ => {}
        }
    }
}

#[test]
fn each_declaration_reads_back_to_the_same_descriptor() {
    let ns = test_namespace();
    for d in ns.descrs() {
        // The parser does not check descr sorts (the verifier does), so
        // `finish` can carry any descriptor through it.
        let text = format!("{}\n[]\nfinish(descr={})\n", descr_decl(d), d.name());
        let alone = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(alone.ops[0].descr.as_ref(), Some(d), "{text}");
        let under = parse_with(&text, &ns).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(under.ops[0].descr.as_ref(), Some(d), "{text}");
    }
    assert!(ns.descrs().count() > 50);
}

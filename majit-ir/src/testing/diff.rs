//! The line diff a failing text test prints.

/// `expected` against `actual`, line by line: ` ` both, `-` only
/// expected, `+` only actual (a longest common subsequence, so a changed
/// line shows as one `-` and one `+`).
pub fn line_diff(expected: &str, actual: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        let line = if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
            format!(" {}", a[i - 1])
        } else if j == b.len() || (i < a.len() && lcs[i + 1][j] >= lcs[i][j + 1]) {
            i += 1;
            format!("-{}", a[i - 1])
        } else {
            j += 1;
            format!("+{}", b[j - 1])
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_one_removal_and_one_addition() {
        let d = line_diff("a\nb\nc", "a\nx\nc\nd");
        assert_eq!(d, " a\n-b\n+x\n c\n+d\n");
        assert_eq!(line_diff("same", "same"), " same\n");
    }
}

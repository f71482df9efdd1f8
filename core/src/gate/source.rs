//! What CPython does to a source file before tokenizing it: the byte-order mark, null bytes, the PEP 263 encoding
//! declaration (`# -*- coding: ... -*-` on line 1 or 2), and newline translation (`\r\n` and a lone `\r` become
//! `\n`, and a final newline is added).
//!
//! The gate judges a file as CPython does when it runs it (`compile()` of its bytes). Its text reaches the gate as
//! UTF-8, so a declaration of another encoding is checked as far as it matters: an unknown or non-text codec, a
//! codec that cannot read ASCII source (UTF-16/32, EBCDIC), non-ASCII text declared ASCII and a BOM with a declaration
//! other than UTF-8 are refused; text declared Latin-1 is read as Latin-1 bytes.

use std::borrow::Cow;

use super::{ProblemKind, SyntaxProblem};

/// Codec names Python 3.12 knows (normalised: lower case, `-` and spaces as `_`), from `encodings.aliases` and the
/// `encodings` package.
const KNOWN: &[&str] = &[
    "037",
    "1026",
    "1125",
    "1140",
    "1250",
    "1251",
    "1252",
    "1253",
    "1254",
    "1255",
    "1256",
    "1257",
    "1258",
    "273",
    "424",
    "437",
    "500",
    "646",
    "775",
    "850",
    "852",
    "855",
    "857",
    "858",
    "860",
    "861",
    "862",
    "863",
    "864",
    "865",
    "866",
    "869",
    "8859",
    "932",
    "936",
    "949",
    "950",
    "ansi_x3.4_1968",
    "ansi_x3.4_1986",
    "ansi_x3_4_1968",
    "arabic",
    "ascii",
    "asmo_708",
    "base64",
    "base64_codec",
    "base_64",
    "big5",
    "big5_hkscs",
    "big5_tw",
    "big5hkscs",
    "bz2",
    "bz2_codec",
    "charmap",
    "chinese",
    "cp037",
    "cp1006",
    "cp1026",
    "cp1051",
    "cp1125",
    "cp1140",
    "cp1250",
    "cp1251",
    "cp1252",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
    "cp1258",
    "cp1361",
    "cp154",
    "cp273",
    "cp367",
    "cp424",
    "cp437",
    "cp500",
    "cp65001",
    "cp720",
    "cp737",
    "cp775",
    "cp819",
    "cp850",
    "cp852",
    "cp855",
    "cp856",
    "cp857",
    "cp858",
    "cp860",
    "cp861",
    "cp862",
    "cp863",
    "cp864",
    "cp865",
    "cp866",
    "cp866u",
    "cp869",
    "cp874",
    "cp875",
    "cp932",
    "cp936",
    "cp949",
    "cp950",
    "cp_gr",
    "cp_is",
    "csascii",
    "csbig5",
    "csibm037",
    "csibm1026",
    "csibm273",
    "csibm424",
    "csibm500",
    "csibm855",
    "csibm857",
    "csibm858",
    "csibm860",
    "csibm861",
    "csibm863",
    "csibm864",
    "csibm865",
    "csibm866",
    "csibm869",
    "csiso2022jp",
    "csiso2022kr",
    "csiso58gb231280",
    "csisolatin1",
    "csisolatin2",
    "csisolatin3",
    "csisolatin4",
    "csisolatin5",
    "csisolatin6",
    "csisolatinarabic",
    "csisolatincyrillic",
    "csisolatingreek",
    "csisolatinhebrew",
    "cskoi8r",
    "cspc775baltic",
    "cspc850multilingual",
    "cspc862latinhebrew",
    "cspc8codepage437",
    "cspcp852",
    "csptcp154",
    "csshiftjis",
    "cyrillic",
    "cyrillic_asian",
    "ebcdic_cp_be",
    "ebcdic_cp_ca",
    "ebcdic_cp_ch",
    "ebcdic_cp_he",
    "ebcdic_cp_nl",
    "ebcdic_cp_us",
    "ebcdic_cp_wt",
    "ecma_114",
    "ecma_118",
    "elot_928",
    "euc_cn",
    "euc_jis2004",
    "euc_jis_2004",
    "euc_jisx0213",
    "euc_jp",
    "euc_kr",
    "euccn",
    "eucgb2312_cn",
    "eucjis2004",
    "eucjisx0213",
    "eucjp",
    "euckr",
    "gb18030",
    "gb18030_2000",
    "gb2312",
    "gb2312_1980",
    "gb2312_80",
    "gbk",
    "greek",
    "greek8",
    "hebrew",
    "hex",
    "hex_codec",
    "hkscs",
    "hp_roman8",
    "hz",
    "hz_gb",
    "hz_gb_2312",
    "hzgb",
    "ibm037",
    "ibm039",
    "ibm1026",
    "ibm1051",
    "ibm1125",
    "ibm1140",
    "ibm273",
    "ibm367",
    "ibm424",
    "ibm437",
    "ibm500",
    "ibm775",
    "ibm819",
    "ibm850",
    "ibm852",
    "ibm855",
    "ibm857",
    "ibm858",
    "ibm860",
    "ibm861",
    "ibm862",
    "ibm863",
    "ibm864",
    "ibm865",
    "ibm866",
    "ibm869",
    "idna",
    "iso2022_jp",
    "iso2022_jp_1",
    "iso2022_jp_2",
    "iso2022_jp_2004",
    "iso2022_jp_3",
    "iso2022_jp_ext",
    "iso2022_kr",
    "iso2022jp",
    "iso2022jp_1",
    "iso2022jp_2",
    "iso2022jp_2004",
    "iso2022jp_3",
    "iso2022jp_ext",
    "iso2022kr",
    "iso646_us",
    "iso8859",
    "iso8859_1",
    "iso8859_10",
    "iso8859_11",
    "iso8859_13",
    "iso8859_14",
    "iso8859_15",
    "iso8859_16",
    "iso8859_2",
    "iso8859_3",
    "iso8859_4",
    "iso8859_5",
    "iso8859_6",
    "iso8859_7",
    "iso8859_8",
    "iso8859_9",
    "iso_2022_jp",
    "iso_2022_jp_1",
    "iso_2022_jp_2",
    "iso_2022_jp_2004",
    "iso_2022_jp_3",
    "iso_2022_jp_ext",
    "iso_2022_kr",
    "iso_646.irv_1991",
    "iso_8859_1",
    "iso_8859_10",
    "iso_8859_10_1992",
    "iso_8859_11",
    "iso_8859_11_2001",
    "iso_8859_13",
    "iso_8859_14",
    "iso_8859_14_1998",
    "iso_8859_15",
    "iso_8859_16",
    "iso_8859_16_2001",
    "iso_8859_1_1987",
    "iso_8859_2",
    "iso_8859_2_1987",
    "iso_8859_3",
    "iso_8859_3_1988",
    "iso_8859_4",
    "iso_8859_4_1988",
    "iso_8859_5",
    "iso_8859_5_1988",
    "iso_8859_6",
    "iso_8859_6_1987",
    "iso_8859_7",
    "iso_8859_7_1987",
    "iso_8859_8",
    "iso_8859_8_1988",
    "iso_8859_9",
    "iso_8859_9_1989",
    "iso_celtic",
    "iso_ir_100",
    "iso_ir_101",
    "iso_ir_109",
    "iso_ir_110",
    "iso_ir_126",
    "iso_ir_127",
    "iso_ir_138",
    "iso_ir_144",
    "iso_ir_148",
    "iso_ir_157",
    "iso_ir_166",
    "iso_ir_199",
    "iso_ir_226",
    "iso_ir_58",
    "iso_ir_6",
    "jisx0213",
    "johab",
    "koi8_r",
    "koi8_t",
    "koi8_u",
    "korean",
    "ks_c_5601",
    "ks_c_5601_1987",
    "ks_x_1001",
    "ksc5601",
    "ksx1001",
    "kz1048",
    "kz_1048",
    "l1",
    "l10",
    "l2",
    "l3",
    "l4",
    "l5",
    "l6",
    "l7",
    "l8",
    "l9",
    "latin",
    "latin1",
    "latin10",
    "latin2",
    "latin3",
    "latin4",
    "latin5",
    "latin6",
    "latin7",
    "latin8",
    "latin9",
    "latin_1",
    "mac_arabic",
    "mac_centeuro",
    "mac_croatian",
    "mac_cyrillic",
    "mac_farsi",
    "mac_greek",
    "mac_iceland",
    "mac_latin2",
    "mac_roman",
    "mac_romanian",
    "mac_turkish",
    "maccentraleurope",
    "maccyrillic",
    "macgreek",
    "maciceland",
    "macintosh",
    "maclatin2",
    "macroman",
    "macturkish",
    "ms1361",
    "ms932",
    "ms936",
    "ms949",
    "ms950",
    "ms_kanji",
    "mskanji",
    "palmos",
    "pt154",
    "ptcp154",
    "punycode",
    "quopri",
    "quopri_codec",
    "quoted_printable",
    "quotedprintable",
    "r8",
    "raw_unicode_escape",
    "rk1048",
    "roman8",
    "rot13",
    "rot_13",
    "ruscii",
    "s_jis",
    "s_jis_2004",
    "s_jisx0213",
    "shift_jis",
    "shift_jis_2004",
    "shift_jisx0213",
    "shiftjis",
    "shiftjis2004",
    "shiftjisx0213",
    "sjis",
    "sjis_2004",
    "sjisx0213",
    "strk1048_2002",
    "thai",
    "tis620",
    "tis_620",
    "tis_620_0",
    "tis_620_2529_0",
    "tis_620_2529_1",
    "u16",
    "u32",
    "u7",
    "u8",
    "u_jis",
    "uhc",
    "ujis",
    "undefined",
    "unicode_1_1_utf_7",
    "unicode_escape",
    "unicodebigunmarked",
    "unicodelittleunmarked",
    "us",
    "us_ascii",
    "utf",
    "utf16",
    "utf32",
    "utf7",
    "utf8",
    "utf8_ucs2",
    "utf8_ucs4",
    "utf_16",
    "utf_16_be",
    "utf_16_le",
    "utf_16be",
    "utf_16le",
    "utf_32",
    "utf_32_be",
    "utf_32_le",
    "utf_32be",
    "utf_32le",
    "utf_7",
    "utf_8",
    "utf_8_sig",
    "uu",
    "uu_codec",
    "windows_1250",
    "windows_1251",
    "windows_1252",
    "windows_1253",
    "windows_1254",
    "windows_1255",
    "windows_1256",
    "windows_1257",
    "windows_1258",
    "x_mac_japanese",
    "x_mac_korean",
    "x_mac_simp_chinese",
    "x_mac_trad_chinese",
    "zip",
    "zlib",
    "zlib_codec",
];

/// Codecs that turn bytes into bytes (`'base64' is not a text encoding`).
const NOT_TEXT: &[&str] = &[
    "base64",
    "base64_codec",
    "base_64",
    "bz2",
    "bz2_codec",
    "hex",
    "hex_codec",
    "quopri",
    "quopri_codec",
    "quoted_printable",
    "quotedprintable",
    "rot13",
    "rot_13",
    "uu",
    "uu_codec",
    "zip",
    "zlib",
    "zlib_codec",
];

/// Codecs that cannot read ASCII source as ASCII (wide encodings, EBCDIC) or always fail.
const NOT_ASCII_COMPATIBLE: &[&str] = &[
    "u16",
    "u32",
    "utf16",
    "utf32",
    "utf_16",
    "utf_16_be",
    "utf_16_le",
    "utf_16be",
    "utf_16le",
    "utf_32",
    "utf_32_be",
    "utf_32_le",
    "utf_32be",
    "utf_32le",
    "unicodebigunmarked",
    "unicodelittleunmarked",
    "037",
    "1026",
    "1140",
    "273",
    "424",
    "500",
    "cp037",
    "cp1026",
    "cp1140",
    "cp273",
    "cp424",
    "cp500",
    "cp875",
    "csibm037",
    "csibm1026",
    "csibm273",
    "csibm424",
    "csibm500",
    "ebcdic_cp_be",
    "ebcdic_cp_ca",
    "ebcdic_cp_ch",
    "ebcdic_cp_he",
    "ebcdic_cp_nl",
    "ebcdic_cp_us",
    "ebcdic_cp_wt",
    "ibm037",
    "ibm039",
    "ibm1026",
    "ibm1140",
    "ibm273",
    "ibm424",
    "ibm500",
    "undefined",
];

/// CPython's `get_normal_name`.
fn normal_name(name: &str) -> String {
    let lower: String = name.chars().take(12).map(|c| if c == '_' { '-' } else { c.to_ascii_lowercase() }).collect();
    if lower == "utf-8" || lower.starts_with("utf-8-") {
        return "utf-8".into();
    }
    for latin in ["latin-1", "iso-8859-1", "iso-latin-1"] {
        if lower == latin || lower.starts_with(&format!("{latin}-")) {
            return "iso-8859-1".into();
        }
    }
    name.to_string()
}

/// CPython's `get_coding_spec` on one line: `Ok(Some(name))`, `Ok(None)` when the line has no declaration, and
/// whether the line is only a comment or blank (then the next line may still declare one).
fn coding_spec(line: &str) -> (Option<String>, bool) {
    let b = line.as_bytes();
    let size = b.len();
    let mut i = 0;
    let mut comment_only = true;
    while i + 6 < size {
        if b[i] == b'#' {
            break;
        }
        if b[i] != b' ' && b[i] != b'\t' && b[i] != 0x0c {
            comment_only = false;
            break;
        }
        i += 1;
    }
    if !comment_only {
        return (None, false);
    }
    while i + 6 < size {
        if &b[i..i + 6] == b"coding" {
            let mut t = i + 6;
            if b[t] != b':' && b[t] != b'=' {
                i += 1;
                continue;
            }
            t += 1;
            while t < size && (b[t] == b' ' || b[t] == b'\t') {
                t += 1;
            }
            let begin = t;
            while t < size && (b[t].is_ascii_alphanumeric() || matches!(b[t], b'-' | b'_' | b'.')) {
                t += 1;
            }
            if begin < t {
                return (Some(normal_name(&line[begin..t])), true);
            }
        }
        i += 1;
    }
    let blank_or_comment = line.trim_start_matches([' ', '\t', '\x0c']).starts_with(['#', '\n', '\r'])
        || line.trim_matches([' ', '\t', '\x0c', '\r', '\n']).is_empty();
    (None, blank_or_comment)
}

fn encoding_problem(message: String) -> SyntaxProblem {
    SyntaxProblem::new(ProblemKind::Encoding, message, 1, 1)
}

/// The text CPython tokenizes, or the problem that stops it before tokenizing.
pub(super) fn prepare(source: &str) -> Result<String, SyntaxProblem> {
    if source.as_bytes().contains(&0) {
        return Err(encoding_problem("source code string cannot contain null bytes".into()));
    }
    let (bom, text) = match source.strip_prefix('\u{feff}') {
        Some(rest) => (true, rest),
        None => (false, source),
    };
    let mut decoded: Cow<'_, str> = Cow::Borrowed(text);
    let mut lines = text.split_inclusive('\n');
    let mut spec = None;
    for _ in 0..2 {
        let Some(line) = lines.next() else {
            break;
        };
        let (found, keep_looking) = coding_spec(line);
        if found.is_some() {
            spec = found;
            break;
        }
        if !keep_looking {
            break;
        }
    }
    if let Some(name) = spec {
        let normalized = name.to_ascii_lowercase().replace(['-', ' '], "_");
        if bom && name != "utf-8" {
            return Err(encoding_problem(format!("encoding problem: {name} with BOM")));
        }
        if !KNOWN.contains(&normalized.as_str()) {
            return Err(encoding_problem(format!("unknown encoding: {name}")));
        }
        if NOT_TEXT.contains(&normalized.as_str()) {
            return Err(encoding_problem(format!(
                "'{name}' is not a text encoding; use codecs.decode() to handle arbitrary codecs"
            )));
        }
        if NOT_ASCII_COMPATIBLE.contains(&normalized.as_str()) {
            return Err(encoding_problem(format!("'{name}' codec can't decode this source")));
        }
        let ascii_only = ["ascii", "us_ascii", "646", "us", "csascii", "ansi_x3.4_1968", "iso646_us", "cp367"];
        if ascii_only.contains(&normalized.as_str())
            && let Some(at) = text.bytes().position(|b| b >= 0x80)
        {
            return Err(encoding_problem(format!(
                "'ascii' codec can't decode byte 0x{:02x} in position {at}: ordinal not in range(128)",
                text.as_bytes()[at]
            )));
        }
        if name == "iso-8859-1" && !text.is_ascii() {
            decoded = Cow::Owned(text.bytes().map(char::from).collect());
        }
    }
    Ok(translate_newlines(&decoded))
}

/// `\r\n` and lone `\r` become `\n`; a final newline is added when missing.
fn translate_newlines(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    let mut rest = text;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('\n') {
            rest = r;
        }
    }
    out.push_str(rest);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines_are_translated() {
        assert_eq!(translate_newlines("a\r\nb\rc"), "a\nb\nc\n");
        assert_eq!(translate_newlines(""), "\n");
    }

    #[test]
    fn declarations_on_the_first_two_lines_count() {
        assert!(prepare("# coding: foobar\nx=1\n").is_err());
        assert!(prepare("#!/usr/bin/python\n# -*- coding: foobar -*-\n").is_err());
        assert!(prepare("x = 1\n# coding: foobar\n").is_ok());
        assert!(prepare("x = 1 # coding: foobar\n").is_ok());
        assert!(prepare("# coding: latin-1\nx = 1\n").is_ok());
        assert!(prepare("# coding: ascii\nx = 'é'\n").is_err());
        assert!(prepare("\u{feff}# coding: latin-1\n").is_err());
        assert!(prepare("# coding: base64\n").is_err());
        assert!(prepare("x = 1\0").is_err());
    }
}

import unittest

from muster_client.json_text import format_compact, format_json_file, format_number, parse_json

from .support import reference_json_files, require_reference


class JsonTextTest(unittest.TestCase):
    def test_numbers_are_written_as_javascript_writes_them(self):
        cases = {1.0: "1", 0.1: "0.1", 1e21: "1e+21", 1e20: "100000000000000000000", 1e-7: "1e-7",
                 1e-6: "0.000001", -0.0: "0", 123.456: "123.456", 5e-324: "5e-324", 2.5e-10: "2.5e-10",
                 1795350958601: "1795350958601", float("nan"): "null"}
        for value, expected in cases.items():
            self.assertEqual(format_number(value), expected, repr(value))

    def test_strings_escape_like_json_stringify(self):
        value = {"a": 'quote " backslash \\ newline \n tab \t bell \x07 line-sep \u2028 lone \ud800 é 😀 </>&'}
        self.assertEqual(
            format_compact(value),
            '{"a":"quote \\" backslash \\\\ newline \\n tab \\t bell \\u0007 line-sep \u2028 lone \\ud800 é 😀 </>&"}',
        )

    def test_file_style_is_two_spaces_without_trailing_newline(self):
        self.assertEqual(format_json_file({"a": [], "b": {}, "c": [1]}), '{\n  "a": [],\n  "b": {},\n  "c": [\n    1\n  ]\n}')

    def test_every_reference_file_is_rewritten_byte_for_byte(self):
        require_reference(self)
        files = reference_json_files()
        self.assertGreater(len(files), 20)
        for file in files:
            with open(file, encoding="utf-8") as handle:
                text = handle.read()
            newline = "\n" if text.endswith("\n") else ""  # kept on rewrite (PROTOCOL.md 3.1)
            self.assertEqual(format_json_file(parse_json(text)) + newline, text, file)

    def test_nan_is_refused_when_parsing(self):
        with self.assertRaises(ValueError):
            parse_json("[NaN]")

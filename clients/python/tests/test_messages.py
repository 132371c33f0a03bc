import glob
import os
import unittest

from muster_client import wire
from muster_client.errors import MusterClientError
from muster_client.generated import wire_types
from muster_client.json_text import parse_json
from muster_client.messages import (
    KEY_ORDER,
    ProtocolContent,
    format_protocol_message,
    parse_message_content,
    permission_response_error,
    permission_response_success,
    shutdown_request,
)

from .support import REFERENCE, require_reference


class MessagesTest(unittest.TestCase):
    def test_every_message_type_of_the_schemas_has_a_key_order_and_a_generated_type(self):
        self.assertEqual(set(KEY_ORDER), set(wire.MESSAGE_TYPE_NAMES))
        for name in wire.MESSAGE_TYPE_NAMES.values():
            self.assertTrue(hasattr(wire_types, name), name)

    def test_reference_protocol_entries_are_typed_and_re_encode_to_the_same_text(self):
        require_reference(self)
        files = sorted(glob.glob(os.path.join(REFERENCE, "protocol", "*.json")))
        self.assertGreater(len(files), 10)
        typed = 0
        for file in files:
            with open(file, encoding="utf-8") as handle:
                entry = parse_json(handle.read())
            content = parse_message_content(entry["text"])
            if os.path.basename(file).startswith("plain_message"):
                self.assertEqual(content.kind, "text", file)
                continue
            self.assertIsInstance(content, ProtocolContent, file)
            self.assertEqual(type(content.typed).__name__, wire.MESSAGE_TYPE_NAMES[content.message_type])
            self.assertEqual(format_protocol_message(content.raw), entry["text"], file)
            typed += 1
        self.assertGreaterEqual(typed, 11)

    def test_free_text_and_malformed_messages_are_text(self):
        self.assertEqual(parse_message_content("hello").kind, "text")
        self.assertEqual(parse_message_content('{"type":"not_a_kind"}').kind, "text")
        self.assertEqual(parse_message_content("{broken").kind, "text")
        malformed = parse_message_content('{"type":"shutdown_request","from":"team-lead"}')
        self.assertEqual(malformed.kind, "text")
        self.assertIn("requestId", malformed.protocol_problem)

    def test_builders_write_claude_code_key_order(self):
        text = shutdown_request("team-lead", "alpha", "done")
        self.assertRegex(text, r'^\{"type":"shutdown_request","requestId":"shutdown-\d+@alpha","from":"team-lead","reason":"done","timestamp":"[^"]+Z"\}$')
        self.assertEqual(
            permission_response_success("perm-1-abcdefg", {"command": "ls"}),
            '{"type":"permission_response","request_id":"perm-1-abcdefg","subtype":"success","response":{"updated_input":{"command":"ls"},"permission_updates":[]}}',
        )
        self.assertEqual(
            permission_response_error("perm-1-abcdefg", "no"),
            '{"type":"permission_response","request_id":"perm-1-abcdefg","subtype":"error","error":"no"}',
        )

    def test_malformed_messages_are_refused_before_sending(self):
        with self.assertRaises(MusterClientError) as caught:
            format_protocol_message({"type": "shutdown_rejected", "requestId": "x", "from": "a", "reason": "", "timestamp": "2026-01-01T00:00:00.000Z"})
        self.assertEqual(caught.exception.code, "INVALID_MESSAGE")
        self.assertIn("reason", caught.exception.message)

"""Field reading: the C++ side's messages, naming the op and the field."""

import unittest

from pipette_worker.fields import Fields, RequestError


class FieldsTest(unittest.TestCase):
    def test_reads_typed_fields_and_defaults(self):
        f = Fields({"n": 5, "b": True, "s": "x", "t": [1, 2], "z": None}, "pp")
        self.assertEqual(f.int("n", 0, 10), 5)
        self.assertEqual(f.int("z", 0, 10, 7), 7)  # null is absent
        self.assertTrue(f.bool("b"))
        self.assertEqual(f.string("s"), "x")
        self.assertEqual(f.tokens("t"), [1, 2])
        self.assertEqual(f.tokens("missing", []), [])
        f.check()

    def test_problems_name_the_op_and_the_field(self):
        cases = [
            ({}, lambda f: f.tokens("tokens"), "pp request: missing required field 'tokens'"),
            ({"tokens": "abc"}, lambda f: f.tokens("tokens"),
             "pp request: field 'tokens' must be an array of token ids, got a string"),
            ({"tokens": [1, True]}, lambda f: f.tokens("tokens"),
             "pp request: field 'tokens' must hold only integer token ids, not a boolean"),
            ({"tokens": [2**32]}, lambda f: f.tokens("tokens"),
             "pp request: field 'tokens' holds 4294967296, which is not a 32-bit token id"),
            ({"n": 0}, lambda f: f.int("n", 1, 10),
             "pp request: field 'n' must be between 1 and 10, got 0"),
            ({"n": 0}, lambda f: f.int("n", 1), "pp request: field 'n' must be at least 1, got 0"),
            ({"n": 2**64 - 1}, lambda f: f.int("n", 0),
             "pp request: field 'n' must be at least 0, got 18446744073709551615"),
            ({"n": 2.0}, lambda f: f.int("n", 1),
             "pp request: field 'n' must be an integer, got a number with a fraction or exponent"),
            ({"n": True}, lambda f: f.int("n", 0),
             "pp request: field 'n' must be an integer, got a boolean"),
            ({"b": 1}, lambda f: f.bool("b"),
             "pp request: field 'b' must be true or false, got an integer"),
        ]
        for request, read, message in cases:
            f = Fields(request, "pp")
            read(f)
            with self.assertRaises(RequestError) as raised:
                f.check()
            self.assertEqual(str(raised.exception), message)

    def test_the_first_problem_is_kept_and_nested_objects_name_their_path(self):
        f = Fields({"messages": [{"role": "user"}, 3]}, "chat")
        messages = f.array("messages")
        m = f.nested(messages[0], "messages[0]")
        m.string("role")
        m.string("content")
        f.take(m)
        f.take(f.nested(messages[1], "messages[1]"))
        self.assertEqual(f.error, "chat request: missing required field 'messages[0].content'")
        g = Fields({}, "chat")
        g.take(g.nested(3, "messages[1]"))
        self.assertEqual(g.error, "chat request: field 'messages[1]' must be an object, got an integer")
        self.assertEqual(Fields([1], "pp").error, "pp request: not a JSON object, got an array")

    def test_chat_messages_are_a_non_empty_array_of_roles_and_contents(self):
        f = Fields({"messages": [{"role": "user", "content": "hi"}]}, "chat")
        self.assertEqual(f.messages(), [("user", "hi")])
        f.check()
        for messages, error in (
                ([], "chat request: field 'messages' must be a non-empty array of "
                     "{\"role\":..,\"content\":..} objects"),
                ([{"role": "user"}], "chat request: missing required field 'messages[0].content'"),
                ([{"role": "user", "content": 1}],
                 "chat request: field 'messages[0].content' must be a string, got an integer")):
            f = Fields({"messages": messages}, "chat")
            f.messages()
            self.assertEqual(f.error, error)


if __name__ == "__main__":
    unittest.main()

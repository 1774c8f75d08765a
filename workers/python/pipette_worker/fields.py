"""Reading typed fields out of a request, with errors that name the op and the field.

The messages are those of the C++ side (src/pipette/util/field_reader.cc):
"pp request: field 'tokens' must be an array of token ids, got a string".
"""

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
NO_MAX = 2**63 - 1


class RequestError(Exception):
    """A request the worker refuses: answered with ok:false and this message; the worker stays
    usable."""


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# The words for a JSON value's kind, as the C++ side's JsonKind has them (bool before int: a
# boolean is an int in Python).
_KINDS = ((str, "a string"), (bool, "a boolean"), (int, "an integer"),
          (float, "a number with a fraction or exponent"), (list, "an array"),
          (dict, "an object"), (type(None), "null"))


def json_kind(value):
    for kind, words in _KINDS:
        if isinstance(value, kind):
            return words
    return "an unknown value"


class Fields:
    """Reads the fields of one request of `op`, remembering the first problem.

    Accessors never raise; after a problem they return a harmless value. check() raises the
    first problem as a RequestError. A field that is null counts as absent.
    """

    _REQUIRED = object()

    def __init__(self, request, op, prefix=""):
        self._request = request if isinstance(request, dict) else {}
        self._what = op + " request"
        self._prefix = prefix
        self.error = ""
        if not isinstance(request, dict):
            if prefix:
                kind = json_kind(request)
                self.fail("field '%s' must be an object, got %s" % (prefix[:-1], kind))
            else:
                self.fail("not a JSON object, got " + json_kind(request))

    def has(self, name):
        return self._request.get(name) is not None

    def fail(self, message):
        """Records a problem found beyond a field's type."""
        if not self.error:
            self.error = self._what + ": " + message

    def check(self):
        """Raises the first problem, if any."""
        if self.error:
            raise RequestError(self.error)

    def _name(self, name):
        return "'" + self._prefix + name + "'"

    def _field_fail(self, name, problem):
        self.fail("field " + self._name(name) + " " + problem)

    def _find(self, name, default):
        value = self._request.get(name)
        if value is None:
            if default is Fields._REQUIRED:
                self.fail("missing required field " + self._name(name))
            return None
        return value

    def int(self, name, lo, hi=NO_MAX, default=_REQUIRED):
        value = self._find(name, default)
        if value is None:
            return lo if default is Fields._REQUIRED else default
        if not _is_int(value):
            self._field_fail(name, "must be an integer, got " + json_kind(value))
            return lo
        if value < lo or value > hi:
            if hi == NO_MAX:
                self._field_fail(name, "must be at least %d, got %d" % (lo, value))
            else:
                self._field_fail(name, "must be between %d and %d, got %d" % (lo, hi, value))
            return lo
        return value

    def bool(self, name, default=_REQUIRED):
        value = self._find(name, default)
        if value is None:
            return False if default is Fields._REQUIRED else default
        if not isinstance(value, bool):
            self._field_fail(name, "must be true or false, got " + json_kind(value))
            return False
        return value

    def string(self, name, default=_REQUIRED):
        value = self._find(name, default)
        if value is None:
            return "" if default is Fields._REQUIRED else default
        if not isinstance(value, str):
            self._field_fail(name, "must be a string, got " + json_kind(value))
            return ""
        return value

    def tokens(self, name, default=_REQUIRED):
        """An array of 32-bit token ids (the vocabulary range is the handler's to check)."""
        value = self._find(name, default)
        if value is None:
            return [] if default is Fields._REQUIRED else default
        if not isinstance(value, list):
            self._field_fail(name, "must be an array of token ids, got " + json_kind(value))
            return []
        for item in value:
            if not _is_int(item):
                self._field_fail(name, "must hold only integer token ids, not " + json_kind(item))
                return []
            if item < INT32_MIN or item > INT32_MAX:
                self._field_fail(name, "holds %d, which is not a 32-bit token id" % item)
                return []
        return value

    def object(self, name, default=_REQUIRED):
        value = self._find(name, default)
        if value is None:
            return {} if default is Fields._REQUIRED else default
        if not isinstance(value, dict):
            self._field_fail(name, "must be an object, got " + json_kind(value))
            return {}
        return value

    def array(self, name, default=_REQUIRED):
        value = self._find(name, default)
        if value is None:
            return [] if default is Fields._REQUIRED else default
        if not isinstance(value, list):
            self._field_fail(name, "must be an array, got " + json_kind(value))
            return []
        return value

    def messages(self, name="messages"):
        """A chat's messages: a non-empty array of objects with string `role` and `content`,
        as [(role, content), ...]; the problems named `messages[i].role`."""
        value = self.array(name)
        if not self.error and not value:
            self._field_fail(name, "must be a non-empty array of {\"role\":..,\"content\":..} "
                             "objects")
        out = []
        for i, item in enumerate(value):
            m = self.nested(item, "%s[%d]" % (name, i))
            out.append((m.string("role"), m.string("content")))
            self.take(m)
        return out

    def nested(self, value, name):
        """A reader for an object inside this request (an item of an array field), its fields
        named `name.field`; take its problems back with take()."""
        sub = Fields.__new__(Fields)
        sub._request = value if isinstance(value, dict) else {}
        sub._what = self._what
        sub._prefix = self._prefix + name + "."
        sub.error = ""
        if not isinstance(value, dict):
            sub.fail("field '" + sub._prefix[:-1] + "' must be an object, got " + json_kind(value))
        return sub

    def take(self, nested):
        if not self.error and nested.error:
            self.error = nested.error

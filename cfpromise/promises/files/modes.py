"""Mode strings and BSD flags as ``perms`` and ``file_select`` write them, read into masks.

:func:`parse_mode` is cf-agent's ParseModeString: a mode is a comma separated
list of clauses, each either an octal number (``0644``: set exactly those
bits) or symbolic (``u+rwx``, ``go-w``, ``a=r``, ``u+s``, ``+t``...).  The
result is a pair of masks: bits to add and bits to remove.  Reading the
attributes (:mod:`cfpromise.promises.files.attributes`) needs it as much as
applying them (:mod:`cfpromise.promises.files.perms`), so it is below both.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    Log = Callable[[str, str], None]

# BSD file flags (chflags(2)), for systems that have them.
_BSD_FLAGS = {
    "arch": 0x00010000, "archived": 0x00010000, "nodump": 0x00000001,
    "opaque": 0x00000008, "sappnd": 0x00040000, "sappend": 0x00040000,
    "schg": 0x00020000, "schange": 0x00020000, "simmutable": 0x00020000,
    "sunlnk": 0x00100000, "sunlink": 0x00100000, "uappnd": 0x00000004,
    "uappend": 0x00000004, "uchg": 0x00000002, "uchange": 0x00000002,
    "uimmutable": 0x00000002, "uunlnk": 0x00000010, "uunlink": 0x00000010,
}
CHFLAGS_MASK = 0xFFFFFFFF


def parse_bsdflags(items: list[str]) -> tuple[int, int]:
    plus = minus = 0
    for item in items:
        if item.startswith("-"):
            minus |= _BSD_FLAGS.get(item[1:], 0)
        else:
            plus |= _BSD_FLAGS.get(item.lstrip("+"), 0)
    return plus, minus


def _set_mask(action: str, value: int, affected: int, masks: list[int]) -> None:
    if action == "+":
        masks[0] |= value
    elif action == "-":
        masks[1] |= value
    else:
        masks[0] |= value
        masks[1] |= (~value) & 0o7777 & affected


_IFMT = 0o170000     # S_IFMT: the file type bits, cleared


def parse_mode(text: str, log: Log | None = None) -> tuple[int, int] | None:
    """ParseModeString: (plus, minus) masks, or None (after an error) when invalid."""
    def error(message: str) -> None:
        if log is not None:
            log("error", message)

    masks = [0, 0]
    affected = value = 0
    action = "="
    gotaction = False
    state = "wild"
    i, n = 0, len(text)
    while True:
        ch = text[i] if i < n else "\0"
        if ch in "augo":
            affected |= {"a": 0o7777, "u": 0o4700, "g": 0o2070, "o": 0o0007}[ch]
        elif ch in "+-=":
            if gotaction:
                error("Too many +-= in mode string")
                return None
            action = ch
            state = "which"
            gotaction = True
        elif ch in "rwxst":
            value |= {"r": 0o444 & affected, "w": 0o222 & affected, "x": 0o111 & affected,
                      "s": 0o6000 & affected, "t": 0o1000}[ch]
        elif ch in "01234567":
            # (sscanf's %o: the octal digits from here; then every digit is skipped)
            j = i
            while j < n and text[j] in "01234567":
                j += 1
            value = int(text[i:j], 8)
            while j < n and text[j].isdigit():
                j += 1
            gotaction = True
            state = "which"
            affected = 0o7777
            if value & _IFMT:
                if log is not None:
                    log("info", "Mode-Value is not entirely within the system's allowed "
                                f"permissions (octal {_IFMT:o}) and will be filtered "
                                f"accordingly : {text}")
                value &= ~_IFMT
            if value > 0o7777:
                error(f"Mode-Value too big : {text}")
                return None
            i = j - 1
        elif ch == ",":
            _set_mask(action, value, affected, masks)
            action, affected, value, gotaction, state = "=", 0, 0, False, "who"
        elif ch == "\0":
            if state == "who" or value == 0:
                if text not in ("0000", "000"):
                    error("mode string is incomplete")
                    return None
            _set_mask(action, value, affected, masks)
            return masks[0], masks[1]
        else:
            error(f"Invalid mode string ({text})")
            return None
        i += 1

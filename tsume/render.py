"""The text of an answer, in one place: the CLI's verdict lines (Japanese, then
English), the USI engine's ``checkmate`` line and ``info string`` details, and the
KIF header's result line. Every function reads a record (result.record, or
Result.fields() for a bare Result); none computes anything about the position. Given
the problem's position, the flaws name their moves in Japanese (notation only: the
moves are replayed to be written, nothing is searched); without it, in USI.
"""
import re


def _one_line(text, limit=240):
    text = re.sub(r"[\s\x00-\x1f\x7f]+", " ", str(text)).strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


def leftover_text(leftover, counts_first=False):
    """Pieces left in hand, in SFEN hand order: 'G S2' (or '2G S' with counts_first,
    as USI and SFEN write hands)."""
    from .pieces import SFEN_HAND_ORDER, USI_LETTER     # (numpy: not for `tsume --help`)
    order = [USI_LETTER[k] for k in SFEN_HAND_ORDER]
    items = sorted(leftover.items(), key=lambda kv: order.index(kv[0])
                   if kv[0] in order else len(order))
    if counts_first:
        return " ".join((f"{n}" if n > 1 else "") + letter for letter, n in items)
    return " ".join(f"{letter}{n if n > 1 else ''}" for letter, n in items)


# Plies of an alternative mate's line shown in a flaw line (then "…").
LINE_PLIES = 6


def _japanese(position, before, moves, limit=None):
    """`moves` (USI), played after the main line's plies `before`, in Japanese (USI
    without a position, or if they do not replay); cut to `limit` plies with "…"."""
    shown = list(moves[:limit]) if limit else list(moves)
    cut = bool(limit) and len(moves) > limit
    if position is not None:
        from .notation import line_to_japanese      # (numpy: not for `tsume --help`)
        try:
            pos = position.copy()
            for usi in before[:-1]:
                pos.push_usi(usi)
            # The move before is written too, then dropped: a capture on its square is 同.
            words = line_to_japanese(pos, list(before[-1:]) + shown).split("　")[len(before[-1:]):]
            return "　".join(words) + ("　…" if cut else "")
        except ValueError:
            pass
    return " ".join(shown) + (" …" if cut else "")


def _by_ply(entries):
    plies = {}
    for y in entries:
        plies.setdefault(y["ply"], []).append(y)
    return sorted(plies.items())


# ---------------------------------------------------------------- CLI text
def verdict_lines(rec, position=None):
    """The verdict lines of the text format (`position`: the problem's, to write the
    flaws' moves in Japanese)."""
    status = rec["status"]
    if status == "mate":
        return _mate_lines(rec, position)
    if status == "nomate":
        return ["不詰 / no mate"]
    if status == "unknown":
        return [f"不明 / unknown ({rec['reason'] or 'search budget exhausted'})"]
    return [f"エラー / error: {_one_line(rec['error'] or '')}"]


def summary_line(rec):
    """The one line that says the verdict (KIF's 結果 header)."""
    lines = verdict_lines(rec)
    if rec["status"] != "mate":
        return lines[-1]
    return next(line for line in lines if line.startswith(("完全作", "詰み")))


def flaw_lines(rec, position=None):
    """The verdict lines but the main line, its USI and the summary: the flaws and
    notes (the KIF header's comments)."""
    if rec["status"] != "mate":
        return []
    summary = summary_line(rec)
    return [line for line in verdict_lines(rec, position)[2:] if line != summary]


def _mate_lines(rec, position=None):
    n = rec["length"]
    lines = [f"{rec['kifu']}　まで{n}手詰" + ("（駒余り）" if rec["komaamari"] else ""),
             "USI: " + " ".join(rec["moves"])]
    if rec["strict_length"] not in (None, n):
        lines.append(f"{n}手詰 (無駄合除く) / strict {rec['strict_length']}")
    moves = rec["moves"]
    flaws = []
    yozume = [y for y in rec["yozume"] if y["kind"] == "yozume"]
    if yozume:
        flaws.append("余詰あり / alternative mates:")
        flaws += ["  " + _group(position, moves, ply, group, "余詰")
                  for ply, group in _by_ply(yozume)]
    if rec["komaamari"]:
        left = leftover_text(rec["leftover"])
        flaws.append(f"駒余り: {left} / pieces left in hand: {left}")
    unchecked = [y for y in rec["yozume"] if y["kind"] == "unchecked"]
    if unchecked:
        flaws.append(_unchecked_line(position, moves, unchecked))
    if not rec["exact"]:
        # (mudaai is null only when no answer was asked for: --answer proof)
        flaws.append("手数未確定 / length not proven shortest ("
                     + ("budget)" if rec["mudaai"] is not None else "proof only)"))
    if rec["complete"]:
        lines.append(f"完全作 / complete: mate in {n}")
    else:
        lines.append(f"詰み {n}手 / mate in {n}" + ("" if flaws else " (余詰 check skipped)"))
    lines += flaws
    info = [y for y in rec["yozume"] if y["kind"] == "last-move"]
    if info:
        lines.append("最終手余詰 / other mates at the last move: " + "、".join(
            _japanese(position, moves[:y["ply"] - 1], [y["move"]]) for y in info))
    ukai = [y for y in rec["yozume"] if y["kind"] == "ukai"]
    if ukai:
        lines.append("迂回 / detours back to the main line: " + "、".join(
            _group(position, moves, ply, group, "迂回", line=False) for ply, group in _by_ply(ukai)))
    if rec["henka"]:
        lines.append("変同 / equal defences: " + "、".join(
            f"{h['ply']}手目 " + "・".join(_japanese(position, moves[:h["ply"] - 1], [m])
                                           for m in h["moves"]) for h in rec["henka"]))
    tree = rec.get("tree")
    if tree:
        lines.append(_tree_line(tree))
    sakui = rec.get("sakui")
    if sakui:
        lines.append(_sakui_line(rec, sakui, position))
    return lines


def _group(position, moves, ply, group, word, line=True):
    """One ply's alternative mates: the shortest named (with its line), the rest counted:
    ``3手目 ▲２三銀 ほか2手で余詰 (7手で詰む: ▲２三銀　△同玉　…)``."""
    group = sorted(group, key=lambda y: (y["length"] or 0, y["move"]))
    first = group[0]
    text = f"{ply}手目 {_japanese(position, moves[:ply - 1], [first['move']])}"
    text += (f" ほか{len(group) - 1}手" if len(group) > 1 else "") + f"で{word}"
    if line:
        shown = (f": {_japanese(position, moves[:ply - 1], first['line'], LINE_PLIES)}"
                 if first.get("line") else "")
        text += f" ({first['length']}手で詰む{shown})"
    return text


_BUDGETS = {"nodes": "node budget", "time": "time limit"}


def _unchecked_line(position, moves, unchecked):
    """The 余詰 checks the budget left open, per ply the first named and the others
    counted (``3手目 ▲２三銀 ほか4手``; the list is in JSON): one open check, the common
    case once the check has widened, is then named where it stands."""
    budgets = sorted({_BUDGETS.get(y.get("budget"), "budget") for y in unchecked})
    per_ply = ", ".join(
        f"{ply}手目 {_japanese(position, moves[:ply - 1], [group[0]['move']])}"
        + (f" ほか{len(group) - 1}手" if len(group) > 1 else "")
        for ply, group in _by_ply(unchecked))
    return (f"余詰未確認 {len(unchecked)}手 / {len(unchecked)} other checks not settled "
            f"({' / '.join(budgets)} ran out): {per_ply}")


_TREE_KINDS = (("equal", "変同"), ("longer", "変長"), ("komaamari", "同手数駒余り"),
               ("mudaai", "無駄合"))


def _tree_line(tree):
    """How many 変化 the solution tree holds, and the marked ones."""
    lines, todo = [], list(tree["variations"])
    while todo:
        line = todo.pop()
        lines.append(line)
        todo += line["variations"]
    counts = [f"{name} {sum(v['kind'] == kind for v in lines)}" for kind, name in _TREE_KINDS
              if any(v["kind"] == kind for v in lines)]
    unread = sum(v["end"] == "budget" for v in lines)
    if unread:
        counts.append(f"未解析 {unread}")
    cut = sum(len(line["cut"]) for line in [tree] + lines)
    if cut:
        counts.append(f"省略 {cut}か所")
    return f"解図: 変化 {len(lines)}本" + (f"（{'、'.join(counts)}）" if counts else "") + \
        f" / solution tree: {len(lines)} variations"


def _sakui_line(rec, sakui, position):
    """The comparison with the author's line: agreement, or where and why they part."""
    if sakui["matches"]:
        return "作意と一致 / matches the author's line"
    head = (f"早詰（作意{sakui['length']}手） / shorter than the author's {sakui['length']} plies"
            if sakui["hayazume"] else
            f"作意と異なる（作意{sakui['length']}手） / differs from the author's line")
    departs = sakui.get("departs")
    if not departs:
        return head
    from .sakui import WHYS
    ply, moves = departs["ply"], rec["moves"]
    before = moves[:ply - 1]
    theirs = _japanese(position, before, [departs["theirs"]]) if departs["theirs"] else "（終わり）"
    ours = _japanese(position, before, [departs["ours"]]) if departs["ours"] else "（終わり）"
    why = WHYS.get(departs["why"], departs["why"] or "?")
    unsure = "、本解の手数は未確定" if not rec["exact"] and departs["why"] in (
        "hayazume", "henchou", "hendou", "sakui-shorter", "sakui-longer", "yozume") else ""
    return (f"{head}: {ply}手目で分岐 作意 {theirs} / 本解 {ours}（{why}{unsure}） "
            f"/ the lines part at ply {ply}")


# ---------------------------------------------------------------- USI
def checkmate_line(rec):
    """The USI ``go mate`` answer (SPEC §4.2); no record (no search) is a timeout, and
    a problem that could not be read is `error` (the CLI's usi format only). The line
    is the strict one (every interposition played out), which ends in checkmate as a
    GUI that replays it expects."""
    status = rec["status"] if rec is not None else "unknown"
    if status == "mate" and rec["moves"]:
        return "checkmate " + " ".join(rec.get("strict_moves") or rec["moves"])
    if status == "nomate":
        return "checkmate nomate"
    return "error" if status == "error" else "checkmate timeout"


_USI_KINDS = {"yozume": "other mate", "ukai": "detour", "last-move": "other last move",
              "unchecked": "unchecked"}


def usi_details(rec, yozume=False, stopped=None, why=None):
    """The ``info string`` texts (ASCII is the caller's) that precede a ``checkmate``
    line: the length and whether it is the shortest, 駒余り, and with `yozume` the 余詰
    check. `stopped`: what cut the search short (stop, time limit), if anything; `why`:
    the reason of an answer without a mate."""
    if rec is None:
        return []
    if rec["status"] == "nomate":
        return ["no mate (proven)"]
    if rec["status"] != "mate":
        return [f"no answer: {why or rec['reason'] or rec['status']}"]
    note = "shortest" if rec["exact"] else "not proven shortest"
    if not rec["exact"] and stopped:
        note += f", {stopped}"
    lines = [f"mate {rec['length']} plies ({note})"]
    if rec["komaamari"]:
        lines.append("komaamari: the attacker has pieces left in hand: "
                     + leftover_text(rec["leftover"], counts_first=True))
    if yozume:
        found = rec["yozume"]
        if stopped:
            # A stop during the check leaves every remaining alternative "unchecked".
            found = [y for y in found if y["kind"] != "unchecked"]
        parts = []
        for y in found:
            length = f" {y['length']} plies" if y.get("length") else ""
            parts.append(f"ply {y['ply']} {y['move']} {_USI_KINDS.get(y['kind'], y['kind'])}{length}")
        text = "; ".join(parts) or "none found"
        if stopped:
            text += f" (check cut short: {stopped})"
        lines.append("yozume: " + text)
    return lines

"""The text of an answer, in one place: the CLI's verdict lines (Japanese, then
English), the USI engine's ``checkmate`` line and ``info string`` details, and the
KIF header's result line. Every function reads a record (result.record, or
Result.fields() for a bare Result); none computes anything about the position.
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


def _at(entries, kind):
    return [f"{y['ply']}手目 {y['move']}" for y in entries if y["kind"] == kind]


# ---------------------------------------------------------------- CLI text
def verdict_lines(rec):
    """The verdict lines of the text format."""
    status = rec["status"]
    if status == "mate":
        return _mate_lines(rec)
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


def _mate_lines(rec):
    n = rec["length"]
    lines = [f"{rec['kifu']}　まで{n}手詰" + ("（駒余り）" if rec["komaamari"] else ""),
             "USI: " + " ".join(rec["moves"])]
    if rec["strict_length"] not in (None, n):
        lines.append(f"{n}手詰 (無駄合除く) / strict {rec['strict_length']}")
    flaws = []
    for y in rec["yozume"]:
        if y["kind"] == "yozume":
            flaws.append(f"余詰あり: {y['ply']}手目 {y['move']} ({y['length']}手で詰む) "
                         f"/ alternative mate at ply {y['ply']}: {y['move']}")
    if rec["komaamari"]:
        left = leftover_text(rec["leftover"])
        flaws.append(f"駒余り: {left} / pieces left in hand: {left}")
    unchecked = _at(rec["yozume"], "unchecked")
    if unchecked:
        flaws.append("余詰未確認 / not settled within the budget: " + ", ".join(unchecked))
    if not rec["exact"]:
        # (mudaai is null only when no answer was asked for: --answer proof)
        flaws.append("手数未確定 / length not proven shortest ("
                     + ("budget)" if rec["mudaai"] is not None else "proof only)"))
    if rec["complete"]:
        lines.append(f"完全作 / complete: mate in {n}")
    else:
        lines.append(f"詰み {n}手 / mate in {n}" + ("" if flaws else " (余詰 check skipped)"))
    lines += flaws
    info, ukai = _at(rec["yozume"], "last-move"), _at(rec["yozume"], "ukai")
    if info:
        lines.append("最終手余詰 / other mates at the last move: " + ", ".join(info))
    if ukai:
        lines.append("迂回 / detours back to the main line: " + ", ".join(ukai))
    if rec["henka"]:
        lines.append("変同 / equal defences: " + ", ".join(
            f"{h['ply']}手目 {'/'.join(h['moves'])}" for h in rec["henka"]))
    sakui = rec.get("sakui")
    if sakui:
        lines.append("作意と一致 / matches the author's line" if sakui["matches"] else
                     (f"早詰 / shorter than the author's {sakui['length']} plies" if sakui["hayazume"]
                      else f"作意と異なる / differs from the author's line ({sakui['length']}手)"))
    return lines


# ---------------------------------------------------------------- USI
def checkmate_line(rec):
    """The USI ``go mate`` answer (SPEC §4.2); no record (no search) is a timeout, and
    a problem that could not be read is `error` (the CLI's usi format only)."""
    status = rec["status"] if rec is not None else "unknown"
    if status == "mate" and rec["moves"]:
        return "checkmate " + " ".join(rec["moves"])
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

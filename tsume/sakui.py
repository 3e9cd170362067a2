"""The answer against the file's own line (作意): do they agree, and if not, where do
they part and why.

Nothing is searched here: the comparison replays the two lines and reads the lengths
the record already holds (the main line's, the solution tree's 変化 when it was
computed, the 余詰 check's entries). README "JSON schema", key ``sakui``.
"""

# Why the lines part (departs["why"]), at the first ply where they differ:
WHYS = {
    "hayazume": "早詰",             # attacker turn: ours mates sooner from here
    "sakui-shorter": "作意が短い",   # attacker turn: the 作意 mates sooner from here
    "yozume": "余詰",               # attacker turn: another mate as long as ours
    "not-check": "王手でない",       # the 作意's attacker move is not a check
    "illegal": "指せない手",         # the 作意's move is not legal there
    "henchou": "変長",              # defender turn: ours lasts longer than the 作意's reply
    "sakui-longer": "作意の応手が長い",  # defender turn: the 作意's reply lasts longer
    "hendou": "変同",               # defender turn: both replies last as long
    "komaamari": "同手数駒余り",      # defender turn: as long, but the 作意's leaves pieces in hand
    "mudaai": "無駄合",             # the 作意 plays on a futile interposition ours does not count
    "ends": "作意が詰んでいない",     # the 作意 stops before mate where ours goes on
}


def compare(position, rec, theirs):
    """The record's ``sakui`` object for a mate record `rec` and the 作意 `theirs`
    (USI): {moves, length, matches, hayazume, departs}, departs being None when the
    lines agree, else {ply, ours, theirs, why} (a move is None past a line's end)."""
    ours = list(rec["moves"])
    theirs = list(theirs)
    out = {"moves": theirs, "length": len(theirs), "matches": ours == theirs,
           "hayazume": rec["length"] < len(theirs), "departs": None}
    if not out["matches"]:
        out["departs"] = _departs(position, rec, ours, theirs)
    return out


def _departs(position, rec, ours, theirs):
    p = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
             min(len(ours), len(theirs)))
    mine = ours[p] if p < len(ours) else None
    their = theirs[p] if p < len(theirs) else None
    found = {"ply": p + 1, "ours": mine, "theirs": their, "why": None}
    pos = position.copy()
    for usi in ours[:p]:
        pos.push_usi(usi)
    attacker_turn = p % 2 == 0
    if their is None:
        found["why"] = "ends"
        return found
    if their not in pos.legal_moves():
        found["why"] = "illegal"
        return found
    if mine is None:
        # Ours ended here: by the 無駄合 rule (the 作意 plays the interposition on), or
        # in mate (where the 作意 could have no legal move at all).
        found["why"] = "mudaai" if rec["length"] != rec["strict_length"] else "ends"
        return found
    ours_left, theirs_left = len(ours) - p, len(theirs) - p
    if attacker_turn:
        if their not in pos.check_moves():
            found["why"] = "not-check"
        else:
            found["why"] = ("hayazume" if ours_left < theirs_left else
                            "yozume" if ours_left == theirs_left else "sakui-shorter")
        return found
    # A defender turn: the 作意's reply as the solution tree has it, when computed (an
    # exact refutation), else as long as the 作意 goes on from it (it may be mated
    # sooner: then ours lasts longer all the more).
    variation = _variation(rec.get("tree"), p + 1, their)
    if variation is not None and variation["kind"] in ("mudaai", "komaamari"):
        found["why"] = variation["kind"]
        return found
    their_length = variation["length"] if variation and variation["length"] else theirs_left
    found["why"] = ("henchou" if their_length < ours_left else
                    "hendou" if their_length == ours_left else "sakui-longer")
    return found


def _variation(tree, ply, first):
    """The main line's 変化 at `ply` that starts with `first`, if the tree has it."""
    if not tree:
        return None
    return next((v for v in tree["variations"] if v["ply"] == ply and v["moves"][0] == first),
                None)

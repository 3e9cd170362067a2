"""tsume: a tsume-shogi solver."""

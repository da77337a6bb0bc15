"""rulespec: the language (grammar, parser, AST, checker), packs and overlays."""
__version__ = "0.1.0"

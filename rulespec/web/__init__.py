"""The browser table of `rulespec serve`: local games played and inspected in a web page.

`table.py` keeps the games (each a human Session of rulespec/human.py, the same session logic
as the terminal table) and turns a position into the JSON the page draws; `app.py` is the
Starlette app and its routes; `static/` the page (plain HTML, JS and SVG, no build step).
Starlette and uvicorn come with the optional extra `pip install -e '.[web]'`.
"""

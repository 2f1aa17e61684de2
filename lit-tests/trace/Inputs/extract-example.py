"""Prints the JSON block that follows the marker `<!-- example: NAME -->` in a
Markdown file, so that a documented example is also a test input.

usage: extract-example.py FILE.md NAME"""
import sys

text = open(sys.argv[1], encoding="utf-8").read()
marker = f"<!-- example: {sys.argv[2]} -->"
start = text.index(marker)
start = text.index("```json\n", start) + len("```json\n")
end = text.index("\n```", start)
sys.stdout.write(text[start:end] + "\n")

"""Reads back the documents tests/data/valid_documents.rs wrote (MANIFEST names them) with the
official readers: junitparser for the JUnit reports, html5lib in strict mode for the HTML pages
(and ElementTree for each inline SVG), Python's csv and json modules for the rows and values.
Exits 1 naming the first document that does not read back as written; prints the counts."""

import csv
import json
import re
import sys
import xml.etree.ElementTree as ElementTree

import html5lib
from junitparser import JUnitXml

with open(sys.argv[1], encoding="utf-8") as f:
    manifest = json.load(f)
checked = {}


def fail(message):
    print(message)
    sys.exit(1)


def attribute(text):
    # quick-junit drops tabs and carriage returns (with escape sequences, which are U+FFFD by
    # then); XML reads each newline left in an attribute value as a space.
    return re.sub(r"[\t\r]", "", text).replace("\n", " ")


for item in manifest["junit"]:
    xml = JUnitXml.fromfile(item["file"])
    names = [case.name for suite in xml for case in suite]
    if names != [attribute(n) for n in item["names"]]:
        fail(f"{item['file']}: testcases {names!r}, written {item['names']!r}")
    if (xml.tests, xml.failures, xml.errors) != (3, 1, 1):
        fail(f"{item['file']}: {xml.tests} tests, {xml.failures} failures, {xml.errors} errors")
checked["junit"] = len(manifest["junit"])

parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
svgs = 0
for item in manifest["html"]:
    with open(item["file"], "rb") as f:
        data = f.read()
    try:
        document = parser.parse(data, transport_encoding="utf-8")
    except html5lib.html5parser.ParseError as error:
        fail(f"{item['file']}: html5lib: {error}")
    if "blocks" in item:
        blocks = [e for e in document.iter("div") if "ev" in e.get("class", "").split()]
        if len(blocks) != item["blocks"]:
            fail(f"{item['file']}: {len(blocks)} event blocks, {item['blocks']} written")
    if "svg" in item:
        text = data.decode("utf-8")
        found = re.findall(r"<svg\b.*?</svg>", text, re.S)
        if len(found) != item["svg"]:
            fail(f"{item['file']}: {len(found)} svg, {item['svg']} written")
        for svg in found:
            try:
                ElementTree.fromstring(svg)
            except ElementTree.ParseError as error:
                fail(f"{item['file']}: an svg is no XML document: {error}")
        svgs += len(found)
checked["html"] = len(manifest["html"])
checked["svg"] = svgs

for item in manifest["csv"]:
    with open(item["file"], encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    if rows != item["rows"]:
        fail(f"{item['file']}: read {rows!r}, written {item['rows']!r}")
checked["csv"] = len(manifest["csv"])

for item in manifest["json"]:
    with open(item["file"], encoding="utf-8") as f:
        ours = json.load(f)
    with open(item["expected"], encoding="utf-8") as f:
        expected = json.load(f)
    if ours != expected:
        fail(f"{item['file']}: read {ours!r}, written {expected!r}")
checked["json"] = len(manifest["json"])

print("read back: " + ", ".join(f"{n} {kind}" for kind, n in checked.items()))

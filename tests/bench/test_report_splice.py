#!/usr/bin/env python3
"""bench/report.py --only: the named experiments' sections and summary rows replace the same
experiments' in an existing report, and nothing else of it changes."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import report  # noqa: E402

OLD = """# title

| experiment | a | b | c |
|---|---|---|---|
| 1 one | - | old one | x |
| 2 two | - | old two | x |
| 10 ten | - | old ten | x |


## 1. One

old body one


## 2. Two

old body two
more


## 10. Ten

old body ten
"""

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}:\n--- got\n{got}\n--- want\n{want}")


# Section 1 and its row: replaced; 2 and 10 (whose number starts with 1) untouched; the blank
# lines that followed the old section kept.
new = report.splice(OLD, "\n## 1. One\n\nnew body one\n\n\n", [("1 one", "-", "new one", "y")])
check("replace 1", new, OLD.replace("old body one", "new body one").replace("| 1 one | - | old one | x |",
                                                                      "| 1 one | - | new one | y |"))

# The last section (to the end of the file) and 10's row, not 1's.
new = report.splice(OLD, "\n## 10. Ten\n\nnew body ten\n", [("10 ten", "-", "new ten", "z")])
check("replace 10", new, OLD.replace("old body ten", "new body ten").replace("| 10 ten | - | old ten | x |",
                                                                         "| 10 ten | - | new ten | z |"))

# A section the old report lacks is appended; with no Summary section, no row is invented.
new = report.splice(OLD, "\n## 3. Three\n\nbody 3\n", [("3 three", "-", "three", "w")])
check("append 3", new, OLD.rstrip("\n") + "\n\n## 3. Three\n\nbody 3\n")

# Two at once, in either order in the new parts.
new = report.splice(OLD, "\n## 10. Ten\n\nB\n\n## 2. Two\n\nA\n", [])
check("two", new, OLD.replace("old body two\nmore", "A").replace("old body ten", "B"))

# A row the old report lacks does not land on another whose number starts the same.
no1 = OLD.replace("| 1 one | - | old one | x |\n", "")
new = report.splice(no1, "", [("1 one", "-", "new one", "y")])
check("no row 1", new, no1)

# In a report with a Summary section, a new experiment's row goes after the rows of lower
# numbers (10 < 11), and its section at the end.
SUM = OLD.replace("# title\n", "# title\n\n## Summary\n")
new = report.splice(SUM, "\n## 11. Eleven\n\nbody 11\n", [("11 eleven", "-", "eleven", "v")])
check("append 11", new, SUM.replace("| 10 ten | - | old ten | x |\n",
                                    "| 10 ten | - | old ten | x |\n| 11 eleven | - | eleven | v |\n").rstrip("\n")
      + "\n\n## 11. Eleven\n\nbody 11\n")

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("report.splice: 6 cases passed")

#!/usr/bin/env python3
"""docs_reference.py -- the README documents what the program takes.

  python3 tests/docs_reference.py GPUSIM [README]

1. Every option a command's --help gives (the lines that define options,
   and the options its usage lines show) is named in that command's
   reference block in the README: the text from a line starting with
   "`gpusim CMD" up to the next such line or heading.  A block may name
   several commands ("`gpusim trace convert|transform|stats|fit ...").
   Every command `gpusim help` lists has a block.
2. Every key of the scenarios' JSON Schema (`gpusim scenario --schema`)
   is named in a code span or block of the README or of a docs/ page it
   links to.
Prints each gap as "README: ..." and exits 1 when there is one."""
import json
import os
import re
import subprocess
import sys

OPT = re.compile(r'(?<![\w-])(--[a-z][a-z0-9-]*)')


def run(gpusim, *args):
    p = subprocess.run([gpusim, *args], capture_output=True, text=True)
    return p.stdout + p.stderr


def commands(gpusim):
    """The commands and subcommands, each with its help text."""
    top = run(gpusim, 'help')
    names = []
    for line in top.split('\n'):
        m = re.match(r'  ([a-z][a-z-]*) ', line)
        if m and m.group(1) not in ('help', 'gpusim'):
            names.append(m.group(1))
    out = {}
    for c in names:
        if c == 'trace':
            h = run(gpusim, 'help', c)
            for s in dict.fromkeys(re.findall(r'^  ([a-z]+) ', h, re.M)):
                out['trace ' + s] = run(gpusim, 'trace', 'help', s)
        elif c == 'llm':
            # one help for both: each takes its own usage lines' options
            h = run(gpusim, 'llm', '--help')
            usage = h.split('\n\n')[0]
            for part in re.split(r'(?=gpusim llm )', usage)[1:]:
                s = part.split()[2]
                out['llm ' + s] = 'usage: ' + part
        else:
            out[c] = run(gpusim, 'help', c)
    return out


def options(text):
    """The options a help text defines: its usage lines' (the first
    paragraph), and each line that starts with an option (its first
    column: "  -o FILE, --out FILE     write here")."""
    found = []
    for i, para in enumerate(text.split('\n\n')):
        for line in para.split('\n'):
            s = line.strip()
            if i == 0:
                found += OPT.findall(line)
            elif re.match(r'-', s):
                found += OPT.findall(re.split(r'\s{2,}', s)[0])
    return list(dict.fromkeys(o for o in found if o != '--help'))


def blocks(readme):
    """Command -> the README text of its reference blocks."""
    out = {}
    cur, buf = None, []
    def flush():
        if cur:
            for c in cur:
                out[c] = out.get(c, '') + '\n'.join(buf) + '\n'
    for line in readme.split('\n'):
        m = re.match(r'`gpusim ((?:trace |llm )?[a-z-]+(?:\|[a-z-]+)*)', line)
        if m or line.startswith('#'):
            flush()
            cur, buf = None, []
            if m:
                words = m.group(1).split(' ')
                head = words[0] + ' ' if len(words) == 2 else ''
                cur = [head + w for w in words[-1].split('|')]
        if cur is not None:
            buf.append(line)
    flush()
    return out


def schema_keys(schema):
    keys = set()
    def walk(n):
        if isinstance(n, dict):
            for k, v in n.get('properties', {}).items():
                keys.add(k)
                walk(v)
            for k, v in n.items():
                if k != 'properties':
                    walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)
    walk(schema)
    return keys


def main():
    gpusim = sys.argv[1]
    path = sys.argv[2] if len(sys.argv) > 2 else 'README.md'
    readme = open(path).read()
    bad = 0
    blk = blocks(readme)
    for cmd, text in commands(gpusim).items():
        if cmd not in blk:
            print(f'README: no reference block for gpusim {cmd}')
            bad += 1
            continue
        for o in options(text):
            if not re.search(r'(?<![\w-])' + re.escape(o) + r'(?![\w-])',
                             blk[cmd]):
                print(f'README: gpusim {cmd}: {o} (in its --help) is not '
                      'in its reference block')
                bad += 1
    top = run(gpusim, 'help')
    for o in OPT.findall(top):
        if o not in readme:
            print(f'README: {o} (gpusim help) is not named')
            bad += 1
    base = os.path.dirname(path) or '.'
    text = readme
    for link in sorted(set(re.findall(r'\]\((docs/[\w-]+\.md)', readme))):
        p = os.path.join(base, link)
        if os.path.exists(p):
            text += open(p).read()
    # code spans, and code blocks (a key shown in an example)
    spans = ' '.join(re.findall(r'```.*?```|`[^`\n]+`', text, re.S))
    keys = schema_keys(json.loads(run(gpusim, 'scenario', '--schema')))
    for k in sorted(keys):
        if not re.search(r'(?<![\w$])' + re.escape(k) + r'(?!\w)', spans):
            print(f'README: scenario key {k} (in --schema) is in no code span '
                  'or block of the README or a docs page it links')
            bad += 1
    print(f'docs_reference: {len(keys)} schema keys, '
          f'{len(blk)} command blocks; {bad} gaps')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

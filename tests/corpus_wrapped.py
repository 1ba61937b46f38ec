#!/usr/bin/env python3
"""The labelled corpus as a terminal's scroll-back would give it: each failed log's lines
cut into rows of WIDTH columns (code points), as tmux or screen copy them. Prints how many
failed logs whose class logdx names first change their first class so; exits 1 when more
than MAX do.   usage: corpus_wrapped.py LOGDX INDEX.tsv WIDTH MAX"""
import json
import os
import subprocess
import sys
import tempfile


def first_class(logdx, data):
    with tempfile.NamedTemporaryFile('wb', suffix='.log', delete=False) as t:
        t.write(data)
    try:
        out = subprocess.run([logdx, '--format', 'json', '--fail-on', 'never', t.name],
                             capture_output=True, text=True, check=False)
        diagnoses = json.loads(out.stdout)['files'][0]['diagnoses']
        return diagnoses[0]['class'] if diagnoses else '-'
    finally:
        os.unlink(t.name)


def cut(data, width):
    rows = []
    for line in data.decode('utf-8', 'surrogateescape').split('\n'):
        while len(line) > width:
            rows.append(line[:width])
            line = line[width:]
        rows.append(line)
    return '\n'.join(rows).encode('utf-8', 'surrogateescape')


def main():
    logdx, index, width, most = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    folder = os.path.dirname(index)
    changed, read = [], 0
    for row in open(index, encoding='utf-8'):
        f = row.rstrip('\n').split('\t')
        if len(f) < 2 or f[0] == 'file' or f[1] == 'healthy':
            continue
        want = f[1].split('|')
        data = open(os.path.join(folder, f[0]), 'rb').read()
        if first_class(logdx, data) not in want:
            continue  # the corpus gate's business
        read += 1
        got = first_class(logdx, cut(data, width))
        if got not in want:
            changed.append(f'{f[0]}: {f[1]} -> {got}')
    for c in changed:
        print('  ' + c)
    print(f'cut at {width} columns: {len(changed)} of {read} failed logs change their first class '
          f'(at most {most})')
    return 1 if len(changed) > most else 0


if __name__ == '__main__':
    sys.exit(main())

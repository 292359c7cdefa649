#!/usr/bin/env python3
"""Interleaved A/B timing of shell commands, for comparing two builds of geo on this noisy VM.

    python3 bench/ab.py N 'CMD A' 'CMD B' [...]

Runs every command once per round, N rounds, so that all of them share the machine's drift
(its speed moves by 20-30 % within a minute), and prints for each the median wall time and the
median and least CPU time (user + system, from wait4). A command that exits non-zero stops the
run. Remove an output file before writing it again inside the command (`rm -f out; geo ... >
out`): truncating a file ext4 has just written makes it write the file back at close.
"""
import os
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds, commands = int(sys.argv[1]), sys.argv[2:]
    wall = [[] for _ in commands]
    cpu = [[] for _ in commands]
    for _ in range(rounds):
        for k, command in enumerate(commands):
            start = time.perf_counter()
            process = subprocess.Popen(command, shell=True)
            _, status, usage = os.wait4(process.pid, 0)
            wall[k].append(time.perf_counter() - start)
            cpu[k].append(usage.ru_utime + usage.ru_stime)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"ab.py: {command!r} exited {os.waitstatus_to_exitcode(status)}")
    for command, w, c in zip(commands, wall, cpu):
        print(f"wall {statistics.median(w) * 1000:8.1f} ms  cpu {statistics.median(c) * 1000:8.1f} ms "
              f"(least {min(c) * 1000:.1f})  {command}")


if __name__ == "__main__":
    main()

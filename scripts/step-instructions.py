# gdb Python, loaded by scripts/hit-instructions.sh (see there). Breaks at the tier-1 code of the
# method named by STEP_METHOD (found in the runtime's perf map), then single-steps STEP_CALLS calls
# from its entry until the stack pointer rises above the entry's (the method returned), counting
# every instruction on the way, the callees' included. Prints one line per call; writes the first
# call's trace, each instruction with the method it belongs to, to STEP_TRACE.
import os
import gdb

pid = gdb.selected_inferior().pid
method = os.environ['STEP_METHOD']
calls = int(os.environ.get('STEP_CALLS', '16'))
trace_path = os.environ.get('STEP_TRACE')

code = []
for line in open(f'/tmp/perf-{pid}.map'):
    start, size, name = line.rstrip('\n').split(' ', 2)
    code.append((int(start, 16), int(size, 16), name))
entries = [(start, name) for start, _, name in code if method in name and name.endswith('[OptimizedTier1]')]
if not entries:
    raise gdb.GdbError(f'no tier-1 code for {method} in /tmp/perf-{pid}.map')

def owner(pc):
    return next((name for start, size, name in reversed(code) if start <= pc < start + size), '?')

# The runtime signals its threads (GC suspension, tiering); pass them through without stopping.
gdb.execute('handle all nostop noprint pass', to_string=True)
for start, name in entries:
    gdb.execute(f'break *{start:#x}', to_string=True)
    print(f'entry {start:#x} {name}')

for call in range(calls):
    gdb.execute('continue', to_string=True)
    sp0 = int(gdb.selected_frame().read_register('rsp'))
    instructions = branches = calls_made = 0
    lines = []
    while True:
        pc = int(gdb.selected_frame().read_register('rip'))
        text = gdb.execute(f'x/i {pc:#x}', to_string=True).split(':', 1)[1].strip()
        mnemonic = text.split()[0]
        instructions += 1
        branches += mnemonic.startswith('j')
        calls_made += mnemonic.startswith('call')
        if call == 0 and trace_path:
            lines.append(f'{pc:#x} {text:60s} | {owner(pc)}')
        gdb.execute('stepi', to_string=True)
        if int(gdb.selected_frame().read_register('rsp')) > sp0:
            break
    print(f'call {call}: instructions {instructions} branches {branches} calls {calls_made}')
    if lines:
        open(trace_path, 'w').write('\n'.join(lines) + '\n')

gdb.execute('delete', to_string=True)
gdb.execute('detach', to_string=True)

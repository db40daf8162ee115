#!/usr/bin/env python3
"""The kernels under test, in one place.

A target is one kernel the harness builds and boots: its architecture,
its config fragments (configs/*.config, handed to kunit_tool in this
order), its build dir under the work dir, the kernel it boots (the UML
binary, or a bzImage under QEMU with kunit_tool's --qemu_config), the
kernel arguments of its KUnit boot, whether its boots write gcov data,
whether it is a debug kernel (lockdep, KASAN or KCSAN, kmemleak: the
user-space boot checks for leaks and widens its timing bounds), and the
prefix of its logs in the results dir.

  coverage   UML with gcov: the default run and its coverage report
  plain      UML without gcov: --no-coverage, --bench
  debug      UML with lockdep, KASAN, kmemleak, UBSAN: --debug, --fuzz
  smp        x86_64 with 4 vCPUs in QEMU, lockdep, KASAN: --smp
  smp-kcsan  the same with KCSAN instead of KASAN: --smp --kcsan

The guards name the target they are proven in on their 'Target:' line
(kernel/guards/); targets.from_env() is the one a stage run by hand
works in (KEVENT_TARGET).

Usage: targets.py list         one line per target
"""
import os
import sys
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# KCSAN in the KUnit boot: a watchpoint every 100 memory accesses per CPU
# instead of 4000, and watchpoints in interrupts too (the timer storage
# runs there); the boot takes about 3x longer.  Not in the user-space
# boot: the delays of that many watchpoints break the user-space tests'
# timing bounds.
KCSAN_KUNIT_ARGS = ('kcsan.skip_watch=100', 'kcsan.interrupt_watcher=1')


@dataclass(frozen=True)
class Target:
    """One kernel under test (see the module's text)."""
    name: str
    arch: str               # kunit_tool's --arch: um or x86_64
    fragments: tuple        # configs/NAME.config, in order
    build: str              # the build dir, under the work dir
    coverage: bool = False  # its boots write gcov data
    debug: bool = False     # a debug kernel: leak checks, wider bounds
    kunit_args: tuple = ()  # more kernel arguments of the KUnit boot

    @property
    def qemu(self):
        """Whether it boots in QEMU (else it is a UML binary)."""
        return self.arch != 'um'

    def kernel(self, build):
        """The kernel that boots, in build dir @build."""
        return os.path.join(build, 'arch/x86/boot/bzImage' if self.qemu
                            else 'linux')

    def qemu_config(self):
        """kunit_tool's --qemu_config of a QEMU target, else ''."""
        return os.path.join(REPO, 'configs/qemu_x86_64_smp.py') if self.qemu else ''

    def fragment_paths(self):
        """The config fragments as paths, in order."""
        return [os.path.join(REPO, 'configs', f + '.config')
                for f in self.fragments]


UML = ('base', 'uml')
X86 = ('base', 'debug', 'x86_64')
TARGETS = {t.name: t for t in (
    Target('coverage', 'um', UML + ('coverage',), 'build', coverage=True),
    Target('plain', 'um', UML, 'build-plain'),
    Target('debug', 'um', UML + ('debug', 'kasan'), 'build-debug', debug=True),
    # base.config, not uml.config (what only the UML kernels have);
    # KCSAN excludes KASAN.
    Target('smp', 'x86_64', X86 + ('kasan',), 'build-smp', debug=True),
    Target('smp-kcsan', 'x86_64', X86 + ('x86_64-kcsan',), 'build-smp-kcsan',
           debug=True, kunit_args=KCSAN_KUNIT_ARGS),
)}


def target(name):
    """The target called @name; ValueError names the others."""
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target '{name}': "
                         f"{', '.join(TARGETS)}") from None


def from_env(default='coverage'):
    """The target KEVENT_TARGET names (@default when unset): the target a
    stage run by hand works in.  ValueError for an unknown one, and for
    the knobs before targets, naming what they became."""
    if os.environ.get('KEVENT_FLAVOUR'):
        raise ValueError('KEVENT_FLAVOUR is now KEVENT_TARGET (coverage, plain '
                         'for nocov, debug, smp, smp-kcsan)')
    if (os.environ.get('KCSAN') or '0') != '0':
        raise ValueError('KCSAN=1 is now KEVENT_TARGET=smp-kcsan')
    return target(os.environ.get('KEVENT_TARGET') or default)


def main(argv):
    if argv[:1] == ['list'] and len(argv) == 1:
        for t in TARGETS.values():
            print(f"{t.name:10} {t.arch:7} {t.build:16} "
                  f"{' '.join(t.fragments)}")
        return 0
    print(__doc__.rstrip().rsplit('\n\n', 1)[1], file=sys.stderr)
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

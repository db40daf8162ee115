# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config of the kevent SMP kernel (--qemu_config), also read
# by scripts/stages.py's qemu_command() for the user-space boot: x86_64
# under multi-threaded TCG (these machines have no KVM) with 4 vCPUs and
# memory enough for KASAN.  kunit_tool loads this file as if it were in its
# qemu_configs/ folder, hence the relative import; stages.py loads it as a
# module of its own, with kunit_tool's folder in the import path.
#
# Environment (set by scripts/userland_layer.py; all optional):
#   KEVENT_QEMU_CPUS     vCPUs (default 4)
#   KEVENT_QEMU_MEM      memory in MiB (default 2048; KASAN takes 1/8)
#   KEVENT_QEMU_INITRD   the test initramfs, booted with rdinit=/init
#   KEVENT_QEMU_RESULTS  a host file the second serial port (ttyS1) writes
#                        to: init's results channel (INIT_RESULTS=/dev/ttyS1)
import os

try:
    from ..qemu_config import QemuArchParams
except ImportError:
    from qemu_config import QemuArchParams

_env = os.environ.get
# An Intel model with a constant TSC, its vCPUs cores of one socket: the
# secondary CPUs then take the boot CPU's delay calibration.  With the
# default qemu64 (no constant TSC) each calibrates its own delay loop under
# TCG and gets it wrong (seen: 4 CPUs at 9868 BogoMIPS in all, the boot
# CPU alone at 4192, so mdelay() far too short on the others, which broke
# kevent_timer_one_ns_period_does_not_flood).
_cpus = _env('KEVENT_QEMU_CPUS', '4')
_params = ['-accel', 'tcg,thread=multi',
           '-cpu', 'Nehalem',
           '-smp', '%s,sockets=1,cores=%s' % (_cpus, _cpus),
           '-m', _env('KEVENT_QEMU_MEM', '2048')]
# qboot (Debian's qemu-system-data) boots faster than SeaBIOS.
if os.path.exists('/usr/share/qemu/qboot.rom'):
    _params += ['-bios', 'qboot.rom']
# A panic reboots at once, and -no-reboot (kunit_tool's) makes QEMU exit.
_cmdline = 'console=ttyS0 panic=-1'
if _env('KEVENT_QEMU_INITRD'):
    _params += ['-initrd', _env('KEVENT_QEMU_INITRD')]
    _cmdline += ' rdinit=/init'
if _env('KEVENT_QEMU_RESULTS'):
    _params += ['-serial', 'file:' + _env('KEVENT_QEMU_RESULTS')]

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
                           kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
                           qemu_arch='x86_64',
                           kernel_path='arch/x86/boot/bzImage',
                           kernel_command_line=_cmdline,
                           extra_qemu_params=_params)

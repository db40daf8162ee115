#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the QEMU command of a kunit_tool QEMU config, NUL-separated.

The command is the one kunit_tool's exec runs (same config file, parsed by
kunit_tool's own loader), without KUnit's kunit_shutdown=reboot, so the
kernel goes on to init: the user-space boot of the SMP kernel.

usage: qemu_cmd.py KUNIT_DIR QEMU_CONFIG BUILD_DIR [KERNEL_ARG...]
"""
import os
import sys


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    kunit_dir, config, build_dir = sys.argv[1:4]
    sys.path.insert(0, kunit_dir)
    import kunit_kernel  # pylint: disable=import-outside-toplevel

    # pylint: disable=protected-access
    _, ops = kunit_kernel._get_qemu_ops(config, None, None)
    cmdline = ops._kernel_command_line.replace(' kunit_shutdown=reboot', '')
    cmd = ['qemu-system-' + ops._qemu_arch,
           '-nodefaults',
           '-m', '1024',
           '-kernel', os.path.join(build_dir, ops._kernel_path),
           '-append', ' '.join(sys.argv[4:] + [cmdline]),
           '-no-reboot',
           '-nographic',
           '-serial', ops._serial] + ops._extra_qemu_params
    sys.stdout.write('\0'.join(cmd) + '\0')
    return 0


if __name__ == '__main__':
    sys.exit(main())

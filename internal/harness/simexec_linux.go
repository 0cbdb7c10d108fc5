package harness

import "syscall"

// dieWithParent has the kernel kill the simulator when the process that
// started it dies.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

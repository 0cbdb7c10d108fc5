//go:build !linux

package harness

import "syscall"

// dieWithParent does nothing where the kernel has no parent-death signal:
// a harness killed outright leaves its simulator to its timeout.
func dieWithParent(*syscall.SysProcAttr) {}

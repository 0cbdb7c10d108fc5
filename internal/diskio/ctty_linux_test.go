package diskio

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// ReadPathMax opens a terminal it is handed without making it the
// process's controlling terminal (O_NOCTTY): a session leader with none,
// as a service is, would otherwise take it (and the terminal's hangups and
// signals with it). The open runs in a child process that is such a leader.
func TestReadPathMaxTakesNoControllingTerminal(t *testing.T) {
	if tty := os.Getenv("DISKIO_TEST_TTY"); tty != "" {
		_, err := ReadPathMax(tty, 10)
		if f, oerr := os.OpenFile("/dev/tty", os.O_RDWR, 0); oerr == nil {
			f.Close()
			fmt.Printf("ReadPathMax(%s) = %v; it became the controlling terminal\n", tty, err)
			os.Exit(1)
		}
		fmt.Printf("ReadPathMax(%s) = %v\n", tty, err)
		os.Exit(0)
	}
	t.Parallel()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	var unlock, n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlock the pseudo-terminal: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("the pseudo-terminal's number: %v", e)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadPathMaxTakesNoControllingTerminal$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("DISKIO_TEST_TTY=/dev/pts/%d", n))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is not a regular file") {
		t.Errorf("%v\n%s", err, out)
	}
}

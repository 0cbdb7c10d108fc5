package testkit

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DialerFrom is a dialer whose connections come from the loopback address
// ip (Linux routes all of 127.0.0.0/8 to lo): a load test's clients each
// bind one of them to stand for many client addresses.
func DialerFrom(ip string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
}

// ProcMiB is a field of the process pid's /proc/<pid>/status given in
// kB (VmRSS, its resident set; VmHWM, its peak), in MiB.
func ProcMiB(t testing.TB, pid int, field string) float64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == field+":" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

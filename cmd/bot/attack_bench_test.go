package main

// Issue 18, items 1 and 2, measured: the built `bot serve` binary, in a
// process of its own under the unit's GOMEMLIMIT, on loopback, against
// 15 000 idle keep-alive connections and against 40 clients sending bodies
// at 1 byte/s. Run one iteration of each (they are minutes of wall time,
// not a loop to time):
//
//	go test ./cmd/bot -run '^$' -bench 'Serve(IdleConnections|SlowClients)' -benchtime 1x
//
// The idle flood needs 15 000 file descriptors in the benchmark's process
// (ulimit -n). Each case also runs with the bounds lifted (max_conns and
// max_conns_per_addr, or max_reads_per_addr, set to a million: the server
// as it was before issue 18, save its shorter timeouts) for comparison.

import (
	"bufio"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
	"github.com/inference-sim/accuracy-dashboard/internal/webhook"
)

// benchServer is a running `bot serve` process.
type benchServer struct {
	cmd  *exec.Cmd
	addr string
}

var buildBot = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "bot-bench-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "accuracy-bot")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// startBot builds and starts `bot serve` on a free loopback port with the
// given YAML configuration and the unit's GOMEMLIMIT, and waits until it
// answers /healthz.
func startBot(b *testing.B, config string) *benchServer {
	b.Helper()
	bin, err := buildBot()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	key := filepath.Join(dir, "app.pem")
	cfg := filepath.Join(dir, "bot.yaml")
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--listen", addr)
	cmd.Env = append(os.Environ(), "BOT_APP_ID=1", "BOT_PRIVATE_KEY_FILE="+key, "BOT_WEBHOOK_SECRET="+benchSecret,
		"BOT_CONFIG="+cfg, "GOMEMLIMIT=192MiB", "BOT_GITHUB_URL=http://127.0.0.1:9/")
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &benchServer{cmd: cmd, addr: addr}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return s
		}
		if i == 200 {
			b.Fatal("bot serve did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const benchSecret = "bench secret"

// peakRSS is the server's peak resident set (VmHWM), in MiB.
func (s *benchServer) peakRSS(b *testing.B) float64 {
	return testkit.ProcMiB(b, s.cmd.Process.Pid, "VmHWM")
}

// signedDelivery posts one signed ping, as GitHub would (a new connection,
// GitHub's 10-second timeout), from ip; it returns the status (0: no answer).
func (s *benchServer) signedDelivery(ip, id string) int {
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: testkit.DialerFrom(ip).DialContext, DisableKeepAlives: true}}
	body := `{"zen":"Design for failure.","hook_id":1}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+s.addr+"/webhook", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.HeaderEvent, "ping")
	req.Header.Set(webhook.HeaderDelivery, id)
	req.Header.Set(webhook.HeaderSignature, webhook.Sign([]byte(benchSecret), []byte(body)))
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// runSerial distinguishes the source addresses of successive runs, so that
// one run's TIME_WAIT sockets never exhaust the next one's ports.
var runSerial atomic.Int32

// BenchmarkServeIdleConnections opens 15 000 connections to `bot serve`,
// sends GET /healthz on each and leaves it idle (the probe), from one
// address and spread over 500 addresses (30 each), then sends a signed
// delivery from another address. It reports the server's peak RSS and
// whether the delivery was answered 200.
func BenchmarkServeIdleConnections(b *testing.B) {
	const conns = 15000
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < conns+500 {
		b.Fatalf("the idle flood needs %d file descriptors; ulimit -n is %d (%v)", conns+500, lim.Cur, err)
	}
	for _, bc := range []struct{ name, config string }{
		{"bounded", ""},
		{"unbounded", "max_conns: 1000000\nmax_conns_per_addr: 1000000\n"},
	} {
		for _, spread := range []int{1, 500} {
			b.Run(fmt.Sprintf("%s/addresses=%d", bc.name, spread), func(b *testing.B) {
				for range b.N {
					s := startBot(b, bc.config)
					run := runSerial.Add(1)
					// 32 openers at once: the 15 000 are open within seconds,
					// well inside the 10-second idle timeout.
					held := make([]net.Conn, conns)
					var served atomic.Int64
					var next atomic.Int64
					var wg sync.WaitGroup
					for range 32 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := int(next.Add(1) - 1); i < conns; i = int(next.Add(1) - 1) {
								ip := fmt.Sprintf("127.%d.%d.%d", 10+run, 1+i%spread/250, 1+i%spread%250)
								c, err := testkit.DialerFrom(ip).Dial("tcp", s.addr)
								if err != nil {
									continue
								}
								held[i] = c
								c.SetDeadline(time.Now().Add(10 * time.Second))
								io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n")
								if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
									resp.Body.Close()
									served.Add(1)
								}
							}
						}()
					}
					wg.Wait()
					code := s.signedDelivery("127.0.0.2", fmt.Sprintf("idle-%d", run))
					b.ReportMetric(s.peakRSS(b), "peak-RSS-MiB")
					b.ReportMetric(float64(served.Load()), "healthz-answered")
					b.ReportMetric(float64(boolInt(code == http.StatusOK)), "signed-accepted")
					for _, c := range held {
						if c != nil {
							c.Close()
						}
					}
				}
			})
		}
	}
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// BenchmarkServeSlowClients runs 40 unsigned clients from one address, each
// sending a 1 000-byte body at 1 byte/s and starting again as soon as it is
// answered or cut off, while GitHub (another address) sends 100 signed
// deliveries, one every 100 ms. It reports the share of them answered 2xx.
func BenchmarkServeSlowClients(b *testing.B) {
	for _, bc := range []struct{ name, config string }{
		{"bounded", ""},
		{"unbounded", "max_reads_per_addr: 1000000\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				s := startBot(b, bc.config)
				run := runSerial.Add(1)
				stop := make(chan struct{})
				var wg sync.WaitGroup
				for range 40 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							select {
							case <-stop:
								return
							default:
							}
							slowClient(s.addr, stop)
						}
					}()
				}
				time.Sleep(2 * time.Second) // let the slow clients take their places
				accepted := 0
				const deliveries = 100
				var took []time.Duration
				for i := range deliveries {
					start := time.Now()
					if code := s.signedDelivery("127.0.0.2", fmt.Sprintf("slow-%d-%d", run, i)); code >= 200 && code < 300 {
						accepted++
					}
					took = append(took, time.Since(start))
					time.Sleep(100 * time.Millisecond)
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "p50-answer-ms")
				b.ReportMetric(float64(took[len(took)-1].Milliseconds()), "max-answer-ms")
				close(stop)
				wg.Wait()
				b.ReportMetric(100*float64(accepted)/deliveries, "signed-accepted-%")
				b.ReportMetric(s.peakRSS(b), "peak-RSS-MiB")
			}
		})
	}
}

// slowClient sends one POST /webhook whose 1 000-byte body comes at 1 byte
// per second, from 127.0.0.1, until the server answers or closes.
func slowClient(addr string, stop <-chan struct{}) {
	c, err := testkit.DialerFrom("127.0.0.1").Dial("tcp", addr)
	if err != nil {
		time.Sleep(100 * time.Millisecond)
		return
	}
	defer c.Close()
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		http.ReadResponse(bufio.NewReader(c), nil)
	}()
	fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"+
		"X-GitHub-Event: ping\r\nX-GitHub-Delivery: slow\r\nContent-Length: 1000\r\n\r\n")
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for range 1000 {
		select {
		case <-answered:
			return
		case <-stop:
			return
		case <-tick.C:
			if _, err := c.Write([]byte{' '}); err != nil {
				return
			}
		}
	}
}

package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/refgateway"
)

// serve prints its base URL and keys, answers with them, lists an extra
// model, and shuts down cleanly on SIGINT.
func TestServe(t *testing.T) {
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--image-key", "sk-serve-test", "--extra-model", "image:gen-image-9")
	cmd.Env = append(os.Environ(), asCLI+"=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()

	lines := bufio.NewScanner(stdout)
	var base string
	var banner []string
	for lines.Scan() {
		banner = append(banner, lines.Text())
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
		}
		if strings.Contains(lines.Text(), "alt key:") {
			break
		}
	}
	require.NotEmpty(t, base, "no base URL in %q", banner)
	text := strings.Join(banner, "\n")
	for _, k := range []string{"sk-local-text", "sk-local-messages", "sk-serve-test", "sk-local-alt"} {
		assert.Contains(t, text, k)
	}
	go io.Copy(io.Discard, stdout)

	req, _ := http.NewRequest(http.MethodGet, base+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer sk-serve-test")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `"gen-image-9"`)
	assert.Contains(t, string(body), `"gen-image-2.5-flare"`)

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "serve exits 0 on SIGINT")
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop on SIGINT")
	}
}

func TestServeFlags(t *testing.T) {
	code, out, _ := gw(t, "serve", "--list-faults")
	assert.Equal(t, exitOK, code)
	for _, f := range refgateway.Faults() {
		assert.Contains(t, out, f.Name)
	}
	for _, args := range [][]string{
		{"serve", "--extra-model", "video:x"},
		{"serve", "--latency", "chat=soon"},
		{"serve", "--rate-limit", "2/h"},
		{"serve", "--rate-limit", "2/s,video=1/s"},
		{"serve", "--fault", "no-such-fault", "--addr", "127.0.0.1:0"},
		{"serve", "stray-argument"},
	} {
		code, _, _ := gw(t, args...)
		assert.Equal(t, exitNotStart, code, "%v", args)
	}
}

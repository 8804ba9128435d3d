package main

import (
	"bufio"
	"encoding/json"
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

// serve --vendor-words lists every key's models under the vendor's words,
// over HTTP: --model-name wins for its model, an extra model with a neutral
// word is renamed too, one given in vendor form is listed as given; a
// model is served by its new name and its spec id is unknown.
func TestServeVendorWords(t *testing.T) {
	base, _ := startServe(t, "--vendor-words", "gen=gpt,msg=claude", "--vendor-words", "alt=gemini", "--model-name", "gen-image-2=painter",
		"--extra-model", "text:gen-5.7", "--extra-model", "text:gpt-5.8")
	def := refgateway.DefaultKeys()
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{def.Text, []string{"gpt-5.5", "gpt-5.6-luna", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-6-astra", "gpt-5.7", "gpt-5.8"}},
		{def.Messages, []string{"claude-sonnet-5", "claude-opus-5", "claude-haiku-4-5-20251001"}},
		{def.Image, []string{"painter", "gpt-image-2.5-flare", "gpt-image-2.5-sunburst"}},
		{def.Alt, []string{"gemini-flash", "gemini-v4-pro"}},
	} {
		t.Run(tc.key, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, base+"/v1/models", nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+tc.key)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var list struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
			var ids []string
			for _, m := range list.Data {
				ids = append(ids, m.ID)
			}
			assert.Equal(t, tc.want, ids)
		})
	}
	chat := func(model string) string {
		return `{"model":"` + model + `","messages":[{"role":"user","content":"Say hello"}]}`
	}
	resp, body, _ := post(t, base+"/v1/chat/completions", def.Text, chat("gpt-5.5"))
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"model":"gpt-5.5"`)
	resp, body, _ = post(t, base+"/v1/chat/completions", def.Text, chat("gen-5.5"))
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, body)
}

// A renaming that names no model, or no name, stops serve from starting
// (exit 2), naming the flag.
func TestServeNamingFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"--model-name", "gen-5.55=x"}, "--model-name: model name gen-5.55=x: gen-5.55 is not a model of the gateway (a spec id or an --extra-model); did you mean gen-5.5?"},
		{[]string{"--model-name", "gen-5.5"}, "--model-name: model name \"gen-5.5\": want SPEC=NAME"},
		{[]string{"--model-name", "gen-5.5=a", "--model-name", "gen-5.6-luna=a"}, "--model-name: model name gen-5.6-luna=a: a is given to gen-5.5 too"},
		{[]string{"--vendor-words", "img=gpt"}, "--vendor-words: vendor word \"img\" is not one of gen, msg, alt"},
		{[]string{"--vendor-words", "gen="}, "--vendor-words: vendor word gen=: the name is empty"},
		{[]string{"--vendor-words", "gen=gpt", "--extra-model", "image:gpt-image-2"}, "gen-image-2 and gpt-image-2 are both served as gpt-image-2"},
		{[]string{"--replay", "rec", "--vendor-words", "gen=gpt"}, "as --model-name and --vendor-words do"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := gw(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
			assert.Equal(t, exitNotStart, code)
			assert.Contains(t, stderr, tt.says)
		})
	}
}

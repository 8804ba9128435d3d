package execute

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
)

// The client keeps honouring the proxy variables with its own transport.
// The gateway's host name is not loopback on purpose: Go never proxies
// loopback, so a 127.0.0.1 URL would prove nothing. Nothing leaves the
// machine: the proxy answers itself.
func TestNewClientHonoursProxyVariables(t *testing.T) {
	var sawHost string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawHost = r.Host
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[]}`))
	}))
	t.Cleanup(proxy.Close)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "direct.example.test")

	client, err := NewClient(TLSOptions{})
	require.NoError(t, err)
	resp, err := client.Get("http://gateway.example.test/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "gateway.example.test", sawHost, "the request went through the proxy")

	direct, err := http.NewRequest(http.MethodGet, "http://direct.example.test/v1/models", nil)
	require.NoError(t, err)
	u, err := client.Transport.(*http.Transport).Proxy(direct)
	require.NoError(t, err)
	assert.Nil(t, u, "NO_PROXY hosts are reached directly")
}

// A private CA is trusted with CACertFile; without it the preflight names
// the certificate problem.
func TestNewClientPrivateCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"object":"list","data":[]}`))
	}))
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))

	tests := []struct {
		name    string
		opts    TLSOptions
		wantErr string
	}{
		{"untrusted", TLSOptions{}, "does not trust"},
		{"private CA", TLSOptions{CACertFile: ca}, ""},
		{"insecure", TLSOptions{Insecure: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := NewClient(tt.opts)
			require.NoError(t, err)
			_, err = Preflight(context.Background(), &catalog.Catalog{}, plan.Target{BaseURL: srv.URL, Client: client}, nil, ListOptions{})
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.wantErr)
			}
		})
	}
	_, err := NewClient(TLSOptions{CACertFile: filepath.Join(t.TempDir(), "missing.pem")})
	assert.ErrorContains(t, err, "--ca-cert")
}

func TestAddHeader(t *testing.T) {
	env := map[string]string{"RELAY_TOKEN": "tok-0123456789", "SHORT": "openai"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		line, name, value, wantErr string
		secret                     bool
	}{
		{line: "X-Relay-Provider: openai", name: "X-Relay-Provider", value: "openai"},
		{line: "x-relay-token: ${RELAY_TOKEN}", name: "X-Relay-Token", value: "tok-0123456789", secret: true},
		{line: "x-relay-provider: ${SHORT}", name: "X-Relay-Provider", value: "openai"}, // too short to redact
		{line: "x-a: Bearer ${RELAY_TOKEN}", name: "X-A", value: "Bearer tok-0123456789", secret: true},
		{line: "Authorization: Bearer x", wantErr: "Authorization comes from the keys"},
		{line: "no colon", wantErr: "want 'Name: value'"},
		{line: "X-B: ${UNSET_VAR}", wantErr: "UNSET_VAR is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var target plan.Target
			err := target.AddHeader("text", tt.line, getenv)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.value, target.KeyHeaders["text"].Get(tt.name))
			if tt.secret {
				assert.Equal(t, []string{tt.value}, target.SecretValues)
			} else {
				assert.Empty(t, target.SecretValues)
			}
		})
	}
}

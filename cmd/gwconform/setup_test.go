package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
)

// Flags override variables, and variables override gwconform.yaml.
func TestSettingsPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name     string
		file     string
		env      map[string]string
		args     []string
		wantURL  string
		wantConc int
		wantTO   time.Duration
		wantKey  string
		wantErr  string
	}{
		{name: "defaults", wantConc: 4, wantTO: 600 * time.Second},
		{name: "file", file: "base_url: https://file.test/\nconcurrency: 7\ntimeout: 30s\n",
			wantURL: "https://file.test", wantConc: 7, wantTO: 30 * time.Second},
		{name: "variable over file", file: "base_url: https://file.test\n",
			env:     map[string]string{"GWCONFORM_BASE_URL": "https://env.test", "GWCONFORM_IMAGE_KEY": "k-env"},
			wantURL: "https://env.test", wantConc: 4, wantTO: 600 * time.Second, wantKey: "k-env"},
		{name: "flag over variable", file: "concurrency: 7\n",
			env:     map[string]string{"GWCONFORM_BASE_URL": "https://env.test", "GWCONFORM_IMAGE_KEY": "k-env"},
			args:    []string{"--base-url", "https://flag.test", "--concurrency", "2", "--image-key", "k-flag"},
			wantURL: "https://flag.test", wantConc: 2, wantTO: 600 * time.Second, wantKey: "k-flag"},
		{name: "keys are not read from the file", file: "image_key: secret\n", wantErr: "image_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.file != "" {
				require.NoError(t, os.WriteFile(filepath.Join(".", "gwconform.yaml"), []byte(tc.file), 0o644))
			}
			f := newEngineFlags("run", io.Discard)
			s, err := f.parse(tc.args)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantURL, s.target.BaseURL)
			assert.Equal(t, tc.wantConc, s.options.Concurrency)
			assert.Equal(t, tc.wantTO, s.options.Timeout)
			assert.Equal(t, tc.wantKey, s.target.Keys[catalog.KeyImage])
		})
	}
}

// Headers per key kind: flags, else the GWCONFORM_*HEADERS variables, else
// gwconform.yaml; timeouts from the file unless flagged.
func TestHeaderAndTimeoutSettings(t *testing.T) {
	file := "headers:\n  all: ['X-Team: core']\n  image: ['X-Route: images']\n  text: ['X-Route: file-text']\nidle_timeout: 90s\nconnect_timeout: 5s\n"
	for _, tc := range []struct {
		name      string
		env       map[string]string
		args      []string
		wantAll   string
		wantImage string
		wantText  string
		wantIdle  time.Duration
		wantErr   string
	}{
		{name: "file", wantAll: "core", wantImage: "images", wantText: "file-text", wantIdle: 90 * time.Second},
		{name: "variable over file", env: map[string]string{"GWCONFORM_TEXT_HEADERS": "X-Route: env-text"},
			wantAll: "core", wantImage: "images", wantText: "env-text", wantIdle: 90 * time.Second},
		{name: "flag over variable", env: map[string]string{"GWCONFORM_TEXT_HEADERS": "X-Route: env-text"},
			args:    []string{"--text-header", "X-Route: flag-text", "-H", "X-Team: flag", "--idle-timeout", "3s"},
			wantAll: "flag", wantImage: "images", wantText: "flag-text", wantIdle: 3 * time.Second},
		{name: "unknown kind in the file", args: []string{"--config", "bad.yaml"}, wantErr: `bad.yaml:2:3: unknown key "texts" in headers; known keys: all, text, messages, image, alt; did you mean "text"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			require.NoError(t, os.WriteFile("gwconform.yaml", []byte(file), 0o644))
			require.NoError(t, os.WriteFile("bad.yaml", []byte("headers:\n  texts: ['X-A: b']\n"), 0o644))
			f := newEngineFlags("run", io.Discard)
			s, err := f.parse(tc.args)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantAll, s.target.Headers.Get("X-Team"))
			assert.Equal(t, tc.wantImage, s.target.KeyHeaders[catalog.KeyImage].Get("X-Route"))
			assert.Equal(t, tc.wantText, s.target.KeyHeaders[catalog.KeyText].Get("X-Route"))
			assert.Equal(t, tc.wantIdle, s.options.IdleTimeout)
			assert.Equal(t, 5*time.Second, s.options.ConnectTimeout)
		})
	}
}

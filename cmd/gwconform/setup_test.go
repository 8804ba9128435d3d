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
			require.NoError(t, f.fs.Parse(tc.args))
			s, err := f.resolve()
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

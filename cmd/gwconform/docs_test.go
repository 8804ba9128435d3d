package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mdLink is a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// The documentation sends a clone to files it has (issue 34): every
// relative link of every Markdown file resolves inside the repository, and
// none names the spec's file, which the repository does not hold.
func TestDocsPointAtFilesACloneHas(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "out" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		assert.NotRegexp(t, `(\.\./shared|spec/model-gateway-api\.md)`, string(b), "%s names a spec path a clone does not have", rel)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			abs := filepath.Join(filepath.Dir(path), target)
			_, err := os.Stat(abs)
			assert.NoError(t, err, "%s links to %s", rel, m[1])
			inside, _ := filepath.Rel(root, abs)
			assert.False(t, strings.HasPrefix(inside, ".."), "%s links outside the repository: %s", rel, m[1])
		}
		return nil
	})
	require.NoError(t, err)
}

package conformancetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sendingImports and sendingNames are what a package needs to send a
// request: a dialer, a client or a request, or a round trip. The check
// stage may read an *http.Response execute received, never make one.
var (
	sendingImports = []string{"net", "net/http/httptrace", "crypto/tls"}
	sendingNames   = map[string][]string{
		"http": {"Get", "Post", "Head", "PostForm", "NewRequest", "NewRequestWithContext", "Client", "DefaultClient", "Transport", "DefaultTransport"},
	}
	sendingMethods = []string{"Do", "RoundTrip", "Dial", "DialContext"}
)

// sendingUses lists each place in the source files that could send a request.
func sendingUses(fset *token.FileSet, files []*ast.File) []string {
	var out []string
	for _, f := range files {
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); slices.Contains(sendingImports, path) {
				out = append(out, fset.Position(imp.Pos()).String()+": imports "+path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := n.X.(*ast.Ident); ok && slices.Contains(sendingNames[pkg.Name], n.Sel.Name) {
					out = append(out, fset.Position(n.Pos()).String()+": uses "+pkg.Name+"."+n.Sel.Name)
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && slices.Contains(sendingMethods, sel.Sel.Name) {
					out = append(out, fset.Position(n.Pos()).String()+": calls ."+sel.Sel.Name)
				}
			}
			return true
		})
	}
	return out
}

// TestCheckSendsNothing: the check stage reads what execute received and
// sends nothing over the network (conformance/doc.go).
func TestCheckSendsNothing(t *testing.T) {
	dir := filepath.Join("..", "check")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.NotEmpty(t, files, "the check stage's sources")
	assert.Empty(t, sendingUses(fset, files))
}

// TestSendingUses: each way of sending is caught, and reading a response is not.
func TestSendingUses(t *testing.T) {
	tests := []struct {
		name, src string
		want      int
	}{
		{"reads a response", `package p; import "net/http"; func f(r *http.Response) int { _ = http.StatusOK; return r.StatusCode }`, 0},
		{"makes a request", `package p; import "net/http"; func f() { http.NewRequest("GET", "u", nil) }`, 1},
		{"has a client", `package p; import "net/http"; var c http.Client`, 1},
		{"round trips", `package p; func f(rt interface{ RoundTrip(int) }) { rt.RoundTrip(1) }`, 1},
		{"dials", `package p; import "net"; func f() { net.Dial("tcp", "x") }`, 2}, // the import and the call
		{"traces", `package p; import "net/http/httptrace"; var _ httptrace.ClientTrace`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", tt.src, 0)
			require.NoError(t, err)
			assert.Len(t, sendingUses(fset, []*ast.File{f}), tt.want)
		})
	}
}

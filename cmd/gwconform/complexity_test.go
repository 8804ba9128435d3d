package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxComplexity bounds the cyclomatic complexity of a function of the CLI:
// it keeps flags and wiring, and a function past this does the work of a
// stage, which belongs in the library.
const maxComplexity = 15

// TestCommandsStayWiring: no function of cmd/gwconform is past
// maxComplexity, counted as gocyclo counts: one, plus one per if, for,
// range, non-default case or select clause, && and ||.
func TestCommandsStayWiring(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				n := complexity(fn.Body)
				assert.LessOrEqual(t, n, maxComplexity, "%s: %s has cyclomatic complexity %d", fset.Position(fn.Pos()), fn.Name.Name, n)
			}
		}
	}
	assert.Equal(t, 4, complexity(parseBody(t, `if a && b { } else if c { }`)), "the count itself")
	assert.Equal(t, 4, complexity(parseBody(t, `switch x { case 1: case 2, 3: default: }; for range y { }`)))
}

func complexity(body ast.Node) int {
	n := 1
	ast.Inspect(body, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

func parseBody(t *testing.T, src string) ast.Node {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\nfunc f() {"+src+"}", 0)
	require.NoError(t, err)
	return f.Decls[0].(*ast.FuncDecl).Body
}

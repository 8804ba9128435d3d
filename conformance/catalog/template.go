package catalog

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/goccy/go-yaml/ast"
)

// TemplateData is what a request template sees: only the model under test.
type TemplateData struct {
	Model string
}

// Template functions. Templates reach nothing else: no environment, no files
// outside the fixtures FS, no network.
const (
	FuncDataURL        = "dataURL"        // dataURL "file": data:<media type>;base64,<fixture>
	FuncBase64         = "base64"         // base64 "file": standard base64 of a fixture
	FuncPublicImageURL = "publicImageURL" // publicImageURL: Env.PublicImageURL
)

// allowedIdents are the functions a template may call: ours, plus printf for
// composing strings (it has no side effects).
var allowedIdents = map[string]bool{FuncDataURL: true, FuncBase64: true, FuncPublicImageURL: true, "printf": true}

const maxTemplateLen = 4096

func compileRegex(s string) (*regexp.Regexp, error) { return regexp.Compile(s) }

// isTemplate is true for strings that need executing; the rest are literal.
func isTemplate(s string) bool { return strings.Contains(s, "{{") }

// parseTemplate parses s with the allowed functions bound to fns and checks
// that it uses only what templates may use.
func parseTemplate(s string, fns template.FuncMap) (*template.Template, error) {
	if len(s) > maxTemplateLen {
		return nil, fmt.Errorf("template longer than %d bytes", maxTemplateLen)
	}
	t, err := template.New("t").Option("missingkey=error").Funcs(fns).Parse(s)
	if err != nil {
		return nil, errors.New(cleanTemplateErr(err))
	}
	if err := restrict(t.Tree.Root); err != nil {
		return nil, err
	}
	return t, nil
}

var templatePrefix = regexp.MustCompile(`^template: t:(\d+)(:\d+)?: (executing "t" )?`)

// cleanTemplateErr drops text/template's "template: t:1:3:" prefix: the
// diagnostic already points at the string.
func cleanTemplateErr(err error) string {
	return templatePrefix.ReplaceAllString(err.Error(), "")
}

// restrict walks a parsed template and rejects every construct beyond text,
// {{ .Model }}, string literals and calls of the allowed functions: no
// loops (a dry run must terminate), no variables, no nested templates.
func restrict(n parse.Node) error {
	switch t := n.(type) {
	case nil:
		return nil
	case *parse.ListNode:
		if t == nil {
			return nil
		}
		return restrictAll(t.Nodes)
	case *parse.ActionNode:
		return restrict(t.Pipe)
	case *parse.PipeNode:
		if t == nil {
			return nil
		}
		if len(t.Decl) > 0 {
			return errors.New("variables are not allowed in templates")
		}
		return restrictAll(t.Cmds)
	case *parse.CommandNode:
		return restrictAll(t.Args)
	}
	return restrictLeaf(n)
}

// restrictAll restricts each node of a list, stopping at the first refused.
func restrictAll[N parse.Node](nodes []N) error {
	for _, n := range nodes {
		if err := restrict(n); err != nil {
			return err
		}
	}
	return nil
}

// restrictLeaf accepts text, comments, literals, .Model and the allowed
// functions, and refuses every other node.
func restrictLeaf(n parse.Node) error {
	switch t := n.(type) {
	case *parse.TextNode, *parse.StringNode, *parse.CommentNode, *parse.NumberNode, *parse.BoolNode:
		return nil
	case *parse.FieldNode:
		if len(t.Ident) != 1 || t.Ident[0] != "Model" {
			return fmt.Errorf("unknown field %s: templates see only .Model", t)
		}
		return nil
	case *parse.IdentifierNode:
		if !allowedIdents[t.Ident] {
			return fmt.Errorf("function %q is not allowed; templates may call dataURL, base64, publicImageURL and printf", t.Ident)
		}
		return nil
	}
	return fmt.Errorf("%s is not allowed in templates; use only {{ .Model }}, dataURL, base64, publicImageURL and printf", strings.TrimSpace(n.String()))
}

// checkTemplate parses a request string and dry-runs it with stand-in
// functions that only check the fixtures exist, so every mistake shows at
// load time, at the string's position.
func (d *decoder) checkTemplate(n ast.Node, s string) {
	if !isTemplate(s) {
		return
	}
	var fixtureErr error
	check := func(name string) (string, error) {
		if err := d.fixtureErr(name); err != nil {
			fixtureErr = err
			return "", err
		}
		return "", nil
	}
	fns := template.FuncMap{
		FuncDataURL: check,
		FuncBase64:  check,
		FuncPublicImageURL: func() string {
			if !d.usesPublicURL {
				d.publicURLPos = nodePos(n)
			}
			d.usesPublicURL = true
			return "https://example.invalid/image.png"
		},
	}
	t, err := parseTemplate(s, fns)
	if err != nil {
		d.errf(n, "invalid template: %v", err)
		return
	}
	if err := t.Execute(io.Discard, TemplateData{Model: "model"}); err != nil {
		if fixtureErr != nil {
			d.errf(n, "%v", fixtureErr)
			return
		}
		d.errf(n, "invalid template: %s", cleanTemplateErr(err))
	}
}

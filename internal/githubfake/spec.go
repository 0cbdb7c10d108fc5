package githubfake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// DescriptionPath is the location, relative to the module root (the
// directory holding go.mod), of GitHub's REST description installed by npm.
const DescriptionPath = "node_modules/@octokit/openapi/generated/api.github.com.json"

// greedyParams are path parameters whose values may contain '/': a file path,
// a ref such as heads/feature/x, a basehead such as main...feature/x, a tag.
// Their template is rewritten to {name:.*} so that the router matches the
// rest of the path, but only where no other operation lives below it.
var greedyParams = map[string]bool{"{path}": true, "{ref}": true, "{basehead}": true, "{tag}": true}

// spec is the loaded description: a router over every GitHub operation, whose
// operations the fake implements carry their full definition and the others
// only their operationId (enough to say "GitHub has it, the fake does not").
type spec struct {
	router routers.Router
	// all maps every operationId of the description to "METHOD /template".
	all map[string]string
}

var (
	specOnce sync.Once
	specVal  *spec
	specErr  error
)

// loadSpecOnce loads the description once per test binary.
func loadSpecOnce(path string) (*spec, error) {
	specOnce.Do(func() { specVal, specErr = loadSpec(path) })
	return specVal, specErr
}

var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "patch": true, "head": true, "options": true, "trace": true}

// loadSpec reads the description, keeps the full definition of the operations
// in implemented (and the components they reference, transitively), replaces
// every other operation with a stub, and builds a router. Pruning keeps the
// load to a fraction of what loading all 13 MB costs (BenchmarkLoadSpec).
func loadSpec(path string) (*spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read OpenAPI description: %w", err)
	}
	var raw struct {
		OpenAPI    string                                `json:"openapi"`
		Info       json.RawMessage                       `json:"info"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components map[string]map[string]json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("decode OpenAPI description %s: %w", path, err)
	}

	templates := slices.Sorted(maps.Keys(raw.Paths))

	all := map[string]string{}
	seen := map[string]bool{}
	outPaths := map[string]map[string]json.RawMessage{}
	var kept [][]byte
	for _, p := range templates {
		item := raw.Paths[p]
		out := map[string]json.RawMessage{}
		full := false
		for method, op := range item {
			if !httpMethods[method] {
				continue
			}
			var head struct {
				OperationID string `json:"operationId"`
			}
			if err := json.Unmarshal(op, &head); err != nil {
				return nil, fmt.Errorf("decode %s %s: %w", method, p, err)
			}
			all[head.OperationID] = strings.ToUpper(method) + " " + p
			if _, ok := handlers[head.OperationID]; ok {
				out[method] = op
				kept = append(kept, op)
				full = true
				continue
			}
			stub, _ := json.Marshal(map[string]any{
				"operationId": head.OperationID,
				"responses":   map[string]any{"default": map[string]any{"description": "not implemented by githubfake"}},
			})
			out[method] = stub
		}
		if full {
			if params, ok := item["parameters"]; ok {
				out["parameters"] = params
				kept = append(kept, params)
			}
		}
		outPaths[rewriteGreedy(p, templates)] = out
	}
	for id := range handlers {
		if _, ok := all[id]; !ok {
			return nil, fmt.Errorf("githubfake implements %q, which is not an operation of %s", id, path)
		}
	}

	components := map[string]map[string]json.RawMessage{}
	queue := kept
	for len(queue) > 0 {
		chunk := queue[0]
		queue = queue[1:]
		for _, m := range refPattern.FindAllSubmatch(chunk, -1) {
			kind, name := string(m[1]), string(m[2])
			key := kind + "/" + name
			if seen[key] {
				continue
			}
			seen[key] = true
			def, ok := raw.Components[kind][name]
			if !ok {
				return nil, fmt.Errorf("OpenAPI description: dangling $ref #/components/%s", key)
			}
			if components[kind] == nil {
				components[kind] = map[string]json.RawMessage{}
			}
			components[kind][name] = def
			queue = append(queue, def)
		}
	}

	pruned, err := json.Marshal(map[string]any{
		"openapi":    raw.OpenAPI,
		"info":       raw.Info,
		"paths":      outPaths,
		"components": components,
	})
	if err != nil {
		return nil, fmt.Errorf("encode pruned description: %w", err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(pruned)
	if err != nil {
		return nil, fmt.Errorf("load OpenAPI description %s: %w", path, err)
	}
	doc.Servers = nil // match on the path alone, whatever the fake's host
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route OpenAPI description %s: %w", path, err)
	}
	return &spec{router: router, all: all}, nil
}

var refPattern = regexp.MustCompile(`"\$ref"\s*:\s*"#/components/([^/"]+)/([^/"]+)"`)

// rewriteGreedy turns a template whose last segment is a greedy parameter, and
// under which no other template lives, into the gorilla/mux form {name:.*}.
func rewriteGreedy(p string, templates []string) string {
	i := strings.LastIndex(p, "/")
	last := p[i+1:]
	if !greedyParams[last] {
		return p
	}
	j := sort.SearchStrings(templates, p+"/")
	if j < len(templates) && strings.HasPrefix(templates[j], p+"/") {
		return p
	}
	return p[:i+1] + "{" + strings.Trim(last, "{}") + ":.*}"
}

// errNoModule reports that no go.mod was found above the working directory.
var errNoModule = errors.New("no go.mod above the working directory")

// findDescription walks up from dir to the directory holding go.mod and
// returns the description's path under it.
func findDescription(dir string) (string, error) {
	return underModule(dir, DescriptionPath)
}

// underModule walks up from dir to the directory holding go.mod and returns
// rel (slash separated) under it.
func underModule(dir, rel string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, filepath.FromSlash(rel)), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errNoModule
		}
		dir = parent
	}
}

// validationCtx is the context used for schema validation; validation does
// no I/O, so it needs no deadline.
var validationCtx = context.Background()

// compactJSON is used in failure messages to keep them on one line.
func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	s := buf.String()
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

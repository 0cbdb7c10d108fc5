// Package githubfake is an in-memory GitHub REST API for tests: an
// httptest server that holds repositories (git objects, refs, files), pull
// requests, issue and commit comments, releases and tags,
// workflow runs with artifact zips, and GitHub App installations, and serves
// exactly the operations the project's adapter (internal/github) calls.
//
// Every request the fake receives and every response it sends is validated
// against GitHub's official OpenAPI description (npm @octokit/openapi,
// node_modules/@octokit/openapi/generated/api.github.com.json under the
// module root), loaded once per test binary. A request that matches no GitHub
// operation, names an operation the fake does not implement, or fails
// validation gets a 404 or 400 answer AND fails the test through the
// testing.TB given to New; so does a response that fails validation. When
// node_modules is absent, New skips the test, or fails it when the
// environment has CI=true.
//
// Tests count calls per operation (Calls, keyed by GitHub's operationId such
// as "issues/create-comment") and inject faults on the next calls of an
// operation (FailNext: 5xx, 403 with Retry-After, exhausted rate limit,
// 409/422). The token's identity is configurable: a user, a workflow's
// GITHUB_TOKEN (GET /user forbidden, comments by github-actions[bot]), a
// fork pull request's read-only token, or a GitHub App whose JWT (verified
// with the App's public key) mints installation tokens scoped to repositories.
package githubfake

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// Options configures a fake. The zero value serves one user token
// "test-token" belonging to "octocat".
type Options struct {
	// Token is the personal or workflow token the fake accepts (as
	// "Authorization: token X" or "Bearer X"). Default "test-token".
	Token string
	// Login is the account Token authenticates as. Default "octocat", or
	// "github-actions[bot]" with ActionsToken.
	Login string
	// ActionsToken makes Token behave as a workflow's GITHUB_TOKEN: GET /user
	// answers 403 "Resource not accessible by integration", as GitHub does.
	ActionsToken bool
	// ReadOnly makes every write made with Token answer 403 "Resource not
	// accessible by integration", as for a pull request from a fork.
	ReadOnly bool
	// App, when set, makes the fake accept JWTs signed by App.PrivateKey's
	// key for App.ID and mint installation tokens for App.Installations.
	App *App
	// PathPrefix is served before every API path, e.g. "/api/v3" to stand in
	// for GitHub Enterprise Server. Default none.
	PathPrefix string
}

// App describes the GitHub App the fake knows.
type App struct {
	ID   int64
	Slug string // bot login is Slug + "[bot]"
	Name string
	// PublicKey verifies the App's RS256 JWTs.
	PublicKey     *rsa.PublicKey
	Installations []Installation
}

// Installation is one installation of the App.
type Installation struct {
	ID      int64
	Account string // the user or organization login
	// Repositories are "owner/name" full names the installation can access.
	Repositories []string
}

// Fault is an answer to inject instead of the operation's normal one.
type Fault struct {
	Status  int
	Header  http.Header
	Message string
	// DocumentationURL goes in the error body; go-github recognizes a
	// secondary rate limit by it. Default GitHub's generic REST docs.
	DocumentationURL string
	// Applied makes the operation take effect before the fault is
	// answered: a response lost on its way back (a 502 from a proxy after
	// GitHub acted).
	Applied bool
}

// LostResponse is a 502 answered after the operation took effect.
func LostResponse() Fault {
	return Fault{Status: http.StatusBadGateway, Message: "Server Error", Applied: true}
}

// ServerError is a transient 5xx.
func ServerError(status int) Fault {
	return Fault{Status: status, Message: "Server Error"}
}

// SecondaryRateLimit is a 403 with Retry-After, as GitHub sends for its
// secondary rate limits.
func SecondaryRateLimit(retryAfterSeconds int) Fault {
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	return Fault{Status: http.StatusForbidden, Header: h,
		Message:          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}
}

// RateLimitExhausted is a 403 with X-RateLimit-Remaining 0 and the given
// reset time, as GitHub sends when the primary rate limit is used up.
func RateLimitExhausted(reset time.Time) Fault {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Used", "5000")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	return Fault{Status: http.StatusForbidden, Header: h, Message: "API rate limit exceeded for user ID 1.",
		DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-rate-limits"}
}

// Conflict is a 409 with the given message.
func Conflict(message string) Fault { return Fault{Status: http.StatusConflict, Message: message} }

// Unprocessable is a 422 with the given message, as for a ref update that
// is not a fast forward.
func Unprocessable(message string) Fault {
	return Fault{Status: http.StatusUnprocessableEntity, Message: message}
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	t    testing.TB
	spec *spec
	srv  *httptest.Server
	opts Options

	mu     sync.Mutex
	calls  map[string]int
	faults map[string][]Fault
	repos  map[string]*repo
	tokens map[string]*identity
	nextID int64
	tick   time.Time // timestamp source for seeded objects
	// hookDeliveries are the App webhook's delivery attempts, oldest
	// first; redeliveryStatus answers the attempts redeliveries make.
	hookDeliveries   []HookDelivery
	redeliveryStatus int
	// hook is the App's webhook the fake delivers to (SetWebhook).
	hook *webhookTarget

	holds holds
}

// identity is who a token authenticates as.
type identity struct {
	kind           string // "user", "actions", "installation", "app"
	login          string
	readOnly       bool
	installationID int64
	repos          map[string]bool // for installation tokens: the accessible repositories
}

// New starts a fake for the test t and stops it when the test ends. It skips
// the test when the OpenAPI description is not installed, unless CI=true.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("githubfake: %v", err)
	}
	path, err := findDescription(wd)
	if err != nil {
		t.Fatalf("githubfake: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		testkit.Missing(t, "node_modules", err, "run npm ci at the module root")
	}
	sp, err := loadSpecOnce(path)
	if err != nil {
		t.Fatalf("githubfake: %v", err)
	}
	if opts.Token == "" {
		opts.Token = "test-token"
	}
	if opts.Login == "" {
		opts.Login = "octocat"
		if opts.ActionsToken {
			opts.Login = "github-actions[bot]"
		}
	}
	opts.PathPrefix = strings.TrimRight(opts.PathPrefix, "/")
	if opts.App != nil {
		app := *opts.App // Install and Uninstall change the fake's copy
		app.Installations = append([]Installation(nil), app.Installations...)
		opts.App = &app
	}
	s := &Server{
		t:      t,
		spec:   sp,
		opts:   opts,
		calls:  map[string]int{},
		faults: map[string][]Fault{},
		repos:  map[string]*repo{},
		tokens: map[string]*identity{},
		nextID: 1000,
		tick:   time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),

		redeliveryStatus: http.StatusAccepted,
		holds:            holds{next: map[string][]chan struct{}{}, released: make(chan struct{})},
	}
	kind := "user"
	if opts.ActionsToken {
		kind = "actions"
	}
	s.tokens[opts.Token] = &identity{kind: kind, login: opts.Login, readOnly: opts.ReadOnly}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	t.Cleanup(s.srv.Close)
	t.Cleanup(s.releaseHolds) // before the close, which waits for held calls
	return s
}

// URL is the API base URL, with a trailing slash (what GITHUB_API_URL names,
// e.g. http://127.0.0.1:PORT/ or http://127.0.0.1:PORT/api/v3/).
func (s *Server) URL() string { return s.srv.URL + s.opts.PathPrefix + "/" }

// Client returns an HTTP client for the fake's listener (loopback).
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Calls reports how many requests named the operation (GitHub operationId,
// e.g. "git/update-ref"), faults included.
func (s *Server) Calls(operationID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[operationID]
}

// CallCounts returns a copy of the per-operation call counts.
func (s *Server) CallCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// FailNext makes the next n calls of the operation answer f instead of
// their normal answer. Faults queue in the order given. It fails the test
// for an operation the fake does not implement.
func (s *Server) FailNext(operationID string, n int, f Fault) {
	s.t.Helper()
	if _, ok := handlers[operationID]; !ok {
		s.t.Errorf("githubfake: FailNext(%q): the fake does not implement that operation", operationID)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < n; i++ {
		s.faults[operationID] = append(s.faults[operationID], f)
	}
}

// SetReadOnly switches fork-pull-request mode for Options.Token.
func (s *Server) SetReadOnly(readOnly bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[s.opts.Token].readOnly = readOnly
}

// call is one request being served.
type call struct {
	s      *Server
	op     string
	method string
	path   string            // request path without the prefix, escaped
	vars   map[string]string // decoded path parameters
	query  url.Values
	body   []byte
	who    *identity
	repo   *repo // for /repos/{owner}/{repo}/… operations
}

// response is a handler's answer.
type response struct {
	status int
	header http.Header
	body   any // JSON-encoded; nil for no body
	raw    []byte
	// loose skips the check that the status is documented (faults, auth).
	// Error statuses are always loose: GitHub answers 404, 422, 403 on
	// operations whose description does not list them.
	loose bool
}

type handlerFunc func(c *call) response

const blobPrefix = "/_githubfake/blobs/"

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, blobPrefix) {
		s.serveBlob(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	desc := r.Method + " " + r.URL.RequestURI()

	// Route against the description, with the prefix stripped.
	rr := r.Clone(r.Context())
	rr.Body = io.NopCloser(bytes.NewReader(body))
	if s.opts.PathPrefix != "" {
		p, ok := strings.CutPrefix(r.URL.Path, s.opts.PathPrefix)
		if !ok {
			s.fail(w, http.StatusNotFound, "githubfake: %s is outside the API prefix %s", desc, s.opts.PathPrefix)
			return
		}
		rr.URL.Path = p
		rr.URL.RawPath, _ = strings.CutPrefix(r.URL.RawPath, s.opts.PathPrefix)
	}
	route, rawVars, err := s.spec.router.FindRoute(rr)
	if err != nil {
		s.fail(w, http.StatusNotFound, "githubfake: %s matches no operation of GitHub's REST API: %v", desc, err)
		return
	}
	op := route.Operation.OperationID
	h, ok := handlers[op]
	if !ok {
		s.fail(w, http.StatusNotFound, "githubfake: %s is GitHub operation %q (%s), which the fake does not implement", desc, op, s.spec.all[op])
		return
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    rr,
		PathParams: rawVars,
		Route:      route,
		Options: &openapi3filter.Options{
			AuthenticationFunc:                openapi3filter.NoopAuthenticationFunc,
			RejectWhenRequestBodyNotSpecified: true,
			MultiError:                        true,
			SchemaValidationOptions:           quietSchemaErrors,
		},
	}
	if err := openapi3filter.ValidateRequest(validationCtx, in); err != nil {
		s.fail(w, http.StatusBadRequest, "githubfake: request %s (%s) does not validate against GitHub's OpenAPI description: %v\nbody: %s", desc, op, err, compactJSON(body))
		return
	}

	vars := map[string]string{}
	for k, v := range rawVars {
		if d, err := url.PathUnescape(v); err == nil {
			v = d
		}
		vars[k] = v
	}
	if s.hold(op, r) {
		return
	}
	c := &call{s: s, op: op, method: r.Method, path: rr.URL.EscapedPath(), vars: vars, query: rr.URL.Query(), body: body}
	resp := s.dispatch(c, r, h)
	s.send(w, in, op, desc, resp)
}

// dispatch counts the call, applies auth, faults and the handler, under the lock.
func (s *Server) dispatch(c *call, r *http.Request, h handlerFunc) response {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[c.op]++
	if q := s.faults[c.op]; len(q) > 0 {
		s.faults[c.op] = q[1:]
		f := q[0]
		if f.Applied {
			s.serve(c, r, h)
		}
		resp := errorResponse(f.Status, f.Message)
		if f.DocumentationURL != "" {
			resp.body.(map[string]any)["documentation_url"] = f.DocumentationURL
		}
		resp.header = f.Header.Clone()
		resp.loose = true
		return resp
	}
	return s.serve(c, r, h)
}

// serve authenticates a call and runs its handler. s.mu must be held.
func (s *Server) serve(c *call, r *http.Request, h handlerFunc) response {
	who, resp, ok := s.authenticate(c, r)
	if !ok {
		return resp
	}
	c.who = who
	if owner, name := c.vars["owner"], c.vars["repo"]; owner != "" && name != "" {
		rp := s.repos[strings.ToLower(owner+"/"+name)]
		if rp == nil || !who.canSee(rp.fullName()) {
			return errorResponse(http.StatusNotFound, "Not Found")
		}
		c.repo = rp
	}
	if who.readOnly && c.method != http.MethodGet && c.method != http.MethodHead {
		resp := errorResponse(http.StatusForbidden, "Resource not accessible by integration")
		resp.loose = true
		return resp
	}
	return h(c)
}

func (id *identity) canSee(fullName string) bool {
	if id.kind != "installation" {
		return true
	}
	return id.repos[strings.ToLower(fullName)]
}

// appOperations are the operations authenticated with the App's JWT.
var appOperations = map[string]bool{
	"apps/get-authenticated":                true,
	"apps/list-installations":               true,
	"apps/create-installation-access-token": true,
	"apps/get-repo-installation":            true,
	"apps/list-webhook-deliveries":          true,
	"apps/redeliver-webhook-delivery":       true,
}

func (s *Server) authenticate(c *call, r *http.Request) (*identity, response, bool) {
	auth := r.Header.Get("Authorization")
	scheme, cred, _ := strings.Cut(auth, " ")
	if auth == "" || (!strings.EqualFold(scheme, "token") && !strings.EqualFold(scheme, "bearer")) {
		return nil, looseError(http.StatusUnauthorized, "Requires authentication"), false
	}
	if appOperations[c.op] {
		if s.opts.App == nil {
			return nil, looseError(http.StatusUnauthorized, "A JSON web token could not be decoded"), false
		}
		if err := s.verifyJWT(cred); err != nil {
			return nil, looseError(http.StatusUnauthorized, "A JSON web token could not be decoded: "+err.Error()), false
		}
		return &identity{kind: "app", login: s.opts.App.Slug + "[bot]"}, response{}, true
	}
	id, ok := s.tokens[cred]
	if !ok {
		return nil, looseError(http.StatusUnauthorized, "Bad credentials"), false
	}
	return id, response{}, true
}

func looseError(status int, msg string) response {
	r := errorResponse(status, msg)
	r.loose = true
	return r
}

// errorResponse is GitHub's basic error body.
func errorResponse(status int, msg string) response {
	return response{status: status, body: map[string]any{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
		"status":            strconv.Itoa(status),
	}}
}

// send completes, validates and writes resp.
func (s *Server) send(w http.ResponseWriter, in *openapi3filter.RequestValidationInput, op, desc string, resp response) {
	if resp.status == 0 {
		resp.status = http.StatusOK
	}
	header := resp.header
	if header == nil {
		header = http.Header{}
	}
	body := resp.raw
	if resp.body != nil {
		v := resp.body
		if ref := in.Route.Operation.Responses.Status(resp.status); ref != nil && ref.Value != nil {
			if mt := ref.Value.Content.Get("application/json"); mt != nil {
				v = complete(mt.Schema, roundTrip(v))
			}
		}
		var err error
		body, err = json.Marshal(v)
		if err != nil {
			s.t.Errorf("githubfake: encode response to %s: %v", desc, err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		header.Set("Content-Type", "application/json; charset=utf-8")
	}
	if resp.status >= 400 {
		header.Set("Content-Type", "application/json; charset=utf-8")
	}
	if err := openapi3filter.ValidateResponse(validationCtx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus:   !resp.loose && resp.status < 400,
			MultiError:              true,
			SchemaValidationOptions: quietSchemaErrors,
		},
	}); err != nil {
		s.t.Errorf("githubfake: response %d to %s (%s) does not validate against GitHub's OpenAPI description: %v\nbody: %s", resp.status, desc, op, err, compactJSON(body))
	}
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.status)
	_, _ = w.Write(body)
}

// quietSchemaErrors leaves schema dumps out of validation errors: they run
// to pages, and the path and reason suffice.
var quietSchemaErrors = []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()}

// roundTrip turns handler values into plain JSON values (maps, slices).
func roundTrip(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

// fail answers status and records a test failure.
func (s *Server) fail(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.t.Errorf("%s", msg)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
	_, _ = w.Write(b)
}

// serveBlob serves artifact zips at the address the download redirect
// names, as blob storage does: without GitHub credentials.
func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		s.fail(w, http.StatusBadRequest, "githubfake: artifact download %s sent an Authorization header to blob storage (GitHub's redirect URL is pre-signed; storage rejects a second credential)", r.URL.Path)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, blobPrefix)
	s.mu.Lock()
	var data []byte
	found := false
	for _, rp := range s.repos {
		for _, a := range rp.artifacts {
			if a.blobName == name && r.URL.Query().Get("sig") == a.sig {
				data, found = a.zip, true
			}
		}
	}
	s.mu.Unlock()
	if !found {
		http.Error(w, "BlobNotFound", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}

package github

import (
	"context"
	"fmt"
	"io"
	"net/http"

	gh "github.com/google/go-github/v60/github"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// Artifact describes a workflow run artifact.
type Artifact struct {
	ID          int64
	Name        string
	SizeInBytes int64 // of the zip archive
	Expired     bool
	// WorkflowRunHeadSHA is the head commit of the run that uploaded it.
	WorkflowRunHeadSHA string
}

// ListArtifacts lists the artifacts of workflow run runID, all pages.
func (c *Client) ListArtifacts(ctx context.Context, repo ident.Repo, runID int64) ([]Artifact, error) {
	items, err := listAll(ctx, c, func(opts gh.ListOptions) ([]*gh.Artifact, *gh.Response, error) {
		list, resp, err := c.gh.Actions.ListWorkflowRunArtifacts(ctx, repo.Owner, repo.Name, runID, &opts)
		if list == nil {
			return nil, resp, err
		}
		return list.Artifacts, resp, err
	})
	if err != nil {
		return nil, fmt.Errorf("list artifacts of run %d in %s: %w", runID, repo, err)
	}
	out := make([]Artifact, 0, len(items))
	for _, a := range items {
		out = append(out, Artifact{
			ID: a.GetID(), Name: a.GetName(), SizeInBytes: a.GetSizeInBytes(), Expired: a.GetExpired(),
			WorkflowRunHeadSHA: a.GetWorkflowRun().GetHeadSHA(),
		})
	}
	return out, nil
}

// DownloadArtifact returns the zip archive of artifact id, at most maxBytes
// long (ErrTooLarge beyond). GitHub answers with a redirect to a pre-signed
// storage URL; the archive is fetched from there with Options.DownloadClient,
// without GitHub credentials. An expired artifact → ErrNotFound.
func (c *Client) DownloadArtifact(ctx context.Context, repo ident.Repo, id int64, maxBytes int64) ([]byte, error) {
	var loc string
	err := c.do(ctx, func() (*gh.Response, error) {
		u, resp, err := c.gh.Actions.DownloadArtifact(ctx, repo.Owner, repo.Name, id, 0)
		if u != nil {
			loc = u.String()
		}
		return resp, err
	})
	if err != nil {
		return nil, fmt.Errorf("download artifact %d of %s: %w", id, repo, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, fmt.Errorf("download artifact %d of %s: %w", id, repo, err)
	}
	resp, err := c.download.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download artifact %d of %s: %w", id, repo, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download artifact %d of %s: %w", id, repo,
			&APIError{StatusCode: resp.StatusCode, Message: "archive storage: " + resp.Status, Err: sentinelFor(resp.StatusCode)})
	}
	if resp.ContentLength > maxBytes {
		return nil, fmt.Errorf("download artifact %d of %s: %d bytes, cap %d: %w", id, repo, resp.ContentLength, maxBytes, ghmodel.ErrTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("download artifact %d of %s: %w", id, repo, err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("download artifact %d of %s: more than %d bytes: %w", id, repo, maxBytes, ghmodel.ErrTooLarge)
	}
	return data, nil
}

package server

import "context"

// Recorded waits until every question s has answered is logged and
// counted (its record comes after the answer is sent).
func Recorded(ctx context.Context, s *Server) error { return s.flight.wait(ctx) }

package api

import "github.com/gofiber/fiber/v2"

// routes lists every route of the app, one per line.
func (s *server) routes(app *fiber.App) {
	app.Get("/healthz", s.health)
	app.Get("/api/openapi.json", s.openAPI)
	app.Get("/api/v1/games", s.listGames)
	app.Get("/api/v1/games/:id", s.getGame)
	app.Post("/api/v1/games/:id/score", s.scoreGame)
	app.All("/api/*", s.notFound)
	app.Get("/*", s.serveApp)
}

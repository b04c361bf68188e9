package api

import "github.com/gofiber/fiber/v2"

// routes lists every route of the app, one per line.
func (s *server) routes(app *fiber.App) {
	app.Get("/healthz", s.health)
	app.Get("/api/openapi.json", s.openAPI)
	app.Get("/api/v1/games", s.listGames)
	app.Get("/api/v1/games/:id", s.getGame)
	app.Post("/api/v1/games/:id/score", s.scoreGame)
	app.Post("/api/v1/tables", s.createTable)
	app.Get("/api/v1/tables/:code", s.guessLimit, s.answerErrors, s.getTable)
	app.Post("/api/v1/tables/:code/seats", s.guessLimit, s.answerErrors, s.joinTable)
	app.Post("/api/v1/tables/:code/seats/:seat/claim", s.guessLimit, s.answerErrors, s.claimSeat)
	app.Put("/api/v1/tables/:code/seats/:seat/board", s.putBoard)
	app.Get("/api/v1/tables/:code/qr.png", s.guessLimit, s.answerErrors, s.tableQRPNG)
	app.Get("/api/v1/tables/:code/qr.svg", s.guessLimit, s.answerErrors, s.tableQRSVG)
	app.Get("/api/v1/tables/:code/events", s.guessLimit, s.answerErrors, s.tableEvents)
	app.Post("/api/v1/tables/:code/finish", s.finishTable)
	app.Post("/api/v1/tables/:code/moves", s.addMove)
	app.Delete("/api/v1/tables/:code/moves/last", s.undoMove)
	app.All("/api/*", s.notFound)
	app.Get("/*", s.serveApp)
}

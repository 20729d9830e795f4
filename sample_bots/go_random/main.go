// go_random: a Talon bot in Go that plays a random legal action.
//
// It shows the bot contract without the Python SDK: any language with gRPC can play. The
// referee starts the bot with TALON_ADDRESS (its gRPC target: unix:///path/to/socket or
// host:port) and either TALON_TOKEN (play that one seat, then exit) or TALON_TOKEN_FILE (a
// warm bot: play the seat whose token is in the file, wait for the file to change, play again;
// the word "exit" stops it). A seat's session is one BotSession.Play stream: send Hello with
// the token, then answer every DecisionRequest with an Answer naming its request_id, until the
// referee ends the stream after MatchOver. See docs/bot_protocol.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"

	pb "talon/v1"
)

const clientVersion = "talon-go-random/0.1.0"

// protoCodec marshals with google.golang.org/protobuf, the library protoc-gen-go generates for.
// Debian's grpc-go (1.33) defaults to the older github.com/golang/protobuf marshaller, which
// cannot encode these messages; registering under the name "proto" replaces it.
type protoCodec struct{}

func (protoCodec) Marshal(v interface{}) ([]byte, error) { return proto.Marshal(v.(proto.Message)) }
func (protoCodec) Unmarshal(data []byte, v interface{}) error {
	return proto.Unmarshal(data, v.(proto.Message))
}
func (protoCodec) Name() string { return "proto" }

func init() { encoding.RegisterCodec(protoCodec{}) }

func main() {
	log.SetFlags(0)
	log.SetPrefix("go_random: ")
	address := os.Getenv("TALON_ADDRESS")
	if address == "" {
		log.Fatal("TALON_ADDRESS is not set: the referee sets it when it starts the bot")
	}
	conn, err := dial(address)
	if err != nil {
		log.Fatalf("cannot reach the referee at %s: %v", address, err)
	}
	defer conn.Close()
	client := pb.NewBotSessionClient(conn)
	rng := rand.New(rand.NewSource(seed()))
	if token := os.Getenv("TALON_TOKEN"); token != "" {
		if err := play(client, token, rng); err != nil {
			log.Fatalf("the referee ended the session: %v", err)
		}
		return
	}
	tokenFile := os.Getenv("TALON_TOKEN_FILE")
	if tokenFile == "" {
		log.Fatal("neither TALON_TOKEN nor TALON_TOKEN_FILE is set: the referee sets one of them")
	}
	parent, previous := os.Getppid(), ""
	if text := os.Getenv("TALON_PARENT_PID"); text != "" { // the process sandbox names its referee
		if pid, err := strconv.Atoi(text); err == nil {
			parent = pid
		}
	}
	for {
		token := nextToken(tokenFile, previous, parent)
		if token == "exit" {
			log.Print("token file says exit: stopping")
			return
		}
		previous = token
		if err := play(client, token, rng); err != nil {
			log.Printf("the referee ended the session: %v", err)
		}
	}
}

// dial connects to a Unix socket (unix:///path or unix:path) or a TCP host:port.
func dial(address string) (*grpc.ClientConn, error) {
	path := ""
	switch {
	case strings.HasPrefix(address, "unix://"):
		path = strings.TrimPrefix(address, "unix://")
	case strings.HasPrefix(address, "unix:"):
		path = strings.TrimPrefix(address, "unix:")
	}
	options := []grpc.DialOption{grpc.WithInsecure()}
	if path == "" {
		return grpc.Dial(address, options...)
	}
	dialer := func(ctx context.Context, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
	return grpc.Dial("passthrough:///talon-referee", append(options, grpc.WithContextDialer(dialer))...)
}

// seed reads TALON_BOT_SEED (for a repeatable bot when you run it by hand; the sandboxes do not
// pass it), or uses the clock.
func seed() int64 {
	if text := os.Getenv("TALON_BOT_SEED"); text != "" {
		if value, err := strconv.ParseInt(text, 10, 64); err == nil {
			return value
		}
		log.Printf("TALON_BOT_SEED=%q is not an integer: using the clock", text)
	}
	return time.Now().UnixNano()
}

// nextToken waits until the token file holds a token other than previous; "exit" when it says
// so or when the process that started the bot is gone (nobody would write the file again).
func nextToken(path, previous string, parent int) string {
	delay := time.Millisecond
	for {
		if os.Getppid() != parent {
			return "exit"
		}
		if data, err := os.ReadFile(path); err == nil {
			if token := strings.TrimSpace(string(data)); token != "" && token != previous {
				return token
			}
		}
		time.Sleep(delay)
		if delay < 100*time.Millisecond {
			delay = delay * 3 / 2
		}
	}
}

// play plays the seat of token until the referee ends the stream.
func play(client pb.BotSessionClient, token string, rng *rand.Rand) error {
	stream, err := client.Play(context.Background())
	if err != nil {
		return err
	}
	hello := &pb.Hello{Token: token, BotName: "go_random", ClientVersion: clientVersion}
	if err := stream.Send(&pb.BotMessage{Message: &pb.BotMessage_Hello{Hello: hello}}); err != nil {
		return err
	}
	seat := uint32(0)
	for {
		message, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return stream.CloseSend()
		}
		if err != nil {
			return err
		}
		switch m := message.Message.(type) {
		case *pb.RefereeMessage_Welcome:
			seat = m.Welcome.Seat
			log.Printf("playing seat %d of match %s (%s %s)", seat, m.Welcome.MatchId, m.Welcome.Rules.GetGame(),
				m.Welcome.Rules.GetPreset())
		case *pb.RefereeMessage_Request:
			answer := &pb.Answer{RequestId: m.Request.RequestId, Action: choose(m.Request.Legal, rng)}
			if err := stream.Send(&pb.BotMessage{Message: &pb.BotMessage_Answer{Answer: answer}}); err != nil {
				return err
			}
		case *pb.RefereeMessage_Error:
			log.Printf("referee: %s (strike %d)", m.Error.Message, m.Error.Strikes)
		case *pb.RefereeMessage_Over:
			log.Print(describe(m.Over.Result, seat))
		}
	}
}

// choose picks one of the listed legal actions at random (both games list at least one).
func choose(legal *pb.LegalActions, rng *rand.Rand) *pb.Action {
	if codes := legal.GetCrazyEights(); len(codes) > 0 {
		return &pb.Action{Action: &pb.Action_CrazyEights{CrazyEights: codes[rng.Intn(len(codes))]}}
	}
	if actions := legal.GetCrazyRummy(); len(actions) > 0 {
		return &pb.Action{Action: &pb.Action_CrazyRummy{CrazyRummy: actions[rng.Intn(len(actions))]}}
	}
	return &pb.Action{Action: &pb.Action_Text{Text: "draw"}}
}

func describe(result *pb.MatchResult, seat uint32) string {
	for _, entry := range result.GetSeats() {
		if entry.Seat == seat {
			return fmt.Sprintf("match %s over: place %d of %d, score %d", result.MatchId, entry.Place,
				len(result.Seats), entry.Score)
		}
	}
	return fmt.Sprintf("match %s over", result.GetMatchId())
}

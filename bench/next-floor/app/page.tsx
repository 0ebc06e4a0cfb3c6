export default function Home() {
  return <p>The bench&apos;s floor for the Vercel door.</p>;
}

import type { ReactNode } from 'react';
import { Group, Paper, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';

export interface Column<T> {
  label: string;
  render(row: T): ReactNode;
  align?: 'left' | 'right';
  /** Hidden from the phone card (shown elsewhere in it, e.g. as its title). */
  desktopOnly?: boolean;
}

/**
 * A list as a table at desktop width and as one card per row on a phone (390 px): a table that scrolls
 * sideways hides the column a merchant looks for. The first column is the card's title.
 */
export function ResponsiveTable<T>({ rows, columns, rowKey, testId, rowAttrs }: {
  rows: T[]; columns: Array<Column<T>>; rowKey(row: T): string; testId?: string;
  rowAttrs?(row: T): Record<string, string>;
}) {
  const phone = useMediaQuery('(max-width: 48em)');
  if (phone) {
    const [first, ...rest] = columns;
    return (
      <Stack gap="sm" data-testid={testId}>
        {rows.map((row) => (
          <Paper key={rowKey(row)} withBorder p="sm" {...rowAttrs?.(row)}>
            <Stack gap={6}>
              {first ? <Text component="div" fw={600}>{first.render(row)}</Text> : null}
              {rest.filter((c) => !c.desktopOnly).map((c) => [c, c.render(row)] as const).filter(([, v]) => v !== null).map(([c, value], i) => (
                <Group key={i} justify="space-between" wrap="nowrap" gap="sm" align="flex-start">
                  <Text size="sm" c="dimmed" style={{ flexShrink: 0 }}>{c.label}</Text>
                  <div style={{ textAlign: 'right', minWidth: 0, wordBreak: 'break-word' }}>{value}</div>
                </Group>
              ))}
            </Stack>
          </Paper>
        ))}
      </Stack>
    );
  }
  return (
    <Table striped highlightOnHover verticalSpacing="sm" data-testid={testId}>
      <Table.Thead>
        <Table.Tr>{columns.map((c, i) => <Table.Th key={i} ta={c.align}>{c.label}</Table.Th>)}</Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={rowKey(row)} {...rowAttrs?.(row)}>
            {columns.map((c, i) => <Table.Td key={i} ta={c.align}>{c.render(row)}</Table.Td>)}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
